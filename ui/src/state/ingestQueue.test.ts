import { describe, expect, it } from 'vitest';
import type { IngestReport, Progress, Stage } from '../backend/types';
import { ingestReducer, initialIngest, queueTimeLeft, type IngestAction, type IngestState } from './ingestQueue';

const ev = (file: string, stage: Stage, remaining_s: number | null = null): Progress => ({
  file,
  file_index: 0,
  files: 1,
  stage,
  done: 0,
  total: 0,
  error: null,
  remaining_s,
});

const report = (over: Partial<IngestReport> = {}): IngestReport => ({
  indexed: [],
  unchanged: [],
  failed: [],
  cancelled: false,
  chunks: 0,
  seconds: 0,
  contexts: [],
  ...over,
});

const run = (actions: IngestAction[], from: IngestState = initialIngest) => actions.reduce(ingestReducer, from);
const listed = (s: IngestState) => s.rows.map((r) => [r.file, r.stage]);

describe('the ingest queue', () => {
  it('lists every file asked for at once, queued, the waiting ones behind the running one', () => {
    const s = run([
      { type: 'queue', job: 1, paths: ['/r/a.txt'] },
      { type: 'start', jobs: [1], at: 0 },
      { type: 'progress', p: ev('/r/a.txt', 'queued'), at: 0 },
      { type: 'progress', p: ev('/r/a.txt', 'embedding'), at: 10 },
      { type: 'queue', job: 2, paths: ['/r/b.txt'] },
      { type: 'queue', job: 3, paths: ['/r/c.txt', '/r/d.txt', '/r/e.txt'] },
    ]);
    expect(listed(s)).toEqual([
      ['/r/a.txt', 'embedding'],
      ['/r/b.txt', 'queued'],
      ['/r/c.txt', 'queued'],
      ['/r/d.txt', 'queued'],
      ['/r/e.txt', 'queued'],
    ]);
    expect(s.rows.map((r) => r.asked)).toEqual([false, true, true, true, true]);
    expect(s.waiting).toEqual([2, 3]);
  });

  it("replaces a folder's row with its files as the engine lists them, in the folder's place", () => {
    const s = run([
      { type: 'queue', job: 1, paths: ['/r/One.pdf'] },
      { type: 'start', jobs: [1], at: 0 },
      { type: 'progress', p: ev('/r/One.pdf', 'indexed'), at: 0 },
      { type: 'queue', job: 2, paths: ['/r/folder', '/r/Two.pdf'] },
      { type: 'queue', job: 3, paths: ['/r/Later.md'] },
      { type: 'finish', report: report({ indexed: ['/r/One.pdf'] }) },
      { type: 'start', jobs: [2, 3], at: 100 },
      { type: 'progress', p: ev('/r/folder/x.md', 'queued'), at: 100 },
      { type: 'progress', p: ev('/r/folder/y.md', 'queued'), at: 100 },
    ]);
    expect(listed(s)).toEqual([
      ['/r/One.pdf', 'indexed'],
      ['/r/folder/x.md', 'queued'],
      ['/r/folder/y.md', 'queued'],
      ['/r/Two.pdf', 'queued'],
      ['/r/Later.md', 'queued'],
    ]);
    // A path that held no file leaves the list when its ingest ends.
    const t = run(
      [
        { type: 'progress', p: ev('/r/Two.pdf', 'indexed'), at: 200 },
        { type: 'finish', report: report({ indexed: ['/r/folder/x.md', '/r/folder/y.md', '/r/Two.pdf'] }) },
      ],
      s,
    );
    expect(t.rows.map((r) => r.file)).toEqual(['/r/One.pdf', '/r/folder/x.md', '/r/folder/y.md', '/r/Two.pdf']);
  });

  it('marks the waiting files cancelled on cancel, and a failed call fails the files it had not reported', () => {
    const s = run([
      { type: 'queue', job: 1, paths: ['/r/a.txt'] },
      { type: 'start', jobs: [1], at: 0 },
      { type: 'queue', job: 2, paths: ['/r/b.txt'] },
      { type: 'cancelling' },
    ]);
    expect(listed(s)).toEqual([
      ['/r/a.txt', 'queued'],
      ['/r/b.txt', 'cancelled'],
    ]);
    expect(s.waiting).toEqual([]);
    const failed = ingestReducer(s, { type: 'fail', error: { code: 'read_only', message: 'read-only' } });
    expect(failed.rows[0]).toMatchObject({ stage: 'failed', error: { code: 'read_only' } });
  });

  it('starts a new list with the first job after an idle spell', () => {
    const s = run([
      { type: 'queue', job: 1, paths: ['/r/a.txt'] },
      { type: 'start', jobs: [1], at: 0 },
      { type: 'finish', report: report({ indexed: ['/r/a.txt'] }) },
      { type: 'idle' },
      { type: 'queue', job: 2, paths: ['/r/b.txt'] },
    ]);
    expect(listed(s)).toEqual([['/r/b.txt', 'queued']]);
    expect(s.report).toBeNull();
  });
});

describe('the time left of the queue', () => {
  // A running batch of 100 MB, 20 s in, with 30 s left by the engine: 2 MB/s.
  const base = run([
    { type: 'queue', job: 1, paths: ['/r/big.pdf'] },
    { type: 'sizes', job: 1, bytes: 100e6 },
    { type: 'start', jobs: [1], at: 1_000 },
    { type: 'queue', job: 2, paths: ['/r/a.txt', '/r/b.txt'] },
    { type: 'queue', job: 3, paths: ['/r/c.txt'] },
  ]);

  it("adds the waiting files' bytes at the running ingest's pace to the engine's estimate", () => {
    expect(queueTimeLeft(base)).toBeNull(); // no estimate from the engine yet
    let s = ingestReducer(base, { type: 'progress', p: ev('/r/big.pdf', 'embedding', 30), at: 21_000 });
    // The waiting jobs' sizes are not known yet: no figure rather than a wrong one.
    expect(queueTimeLeft(s)).toBeNull();
    s = run(
      [
        { type: 'sizes', job: 2, bytes: 40e6 },
        { type: 'sizes', job: 3, bytes: 20e6 },
      ],
      s,
    );
    // 30 s + 60 MB at 2 MB/s.
    expect(queueTimeLeft(s)).toBeCloseTo(60);
    // Without waiting files, the engine's own figure.
    expect(queueTimeLeft({ ...s, waiting: [] })).toBeCloseTo(30);
  });

  it("estimates the next batch at the last one's pace until the engine has its own figure", () => {
    const s = run([
      { type: 'sizes', job: 2, bytes: 40e6 },
      { type: 'sizes', job: 3, bytes: 20e6 },
      { type: 'progress', p: ev('/r/big.pdf', 'embedding', 30), at: 21_000 },
      { type: 'progress', p: ev('/r/big.pdf', 'indexed', 0), at: 51_000 },
      { type: 'finish', report: report({ indexed: ['/r/big.pdf'] }) },
      { type: 'start', jobs: [2, 3], at: 51_000 },
      { type: 'progress', p: ev('/r/a.txt', 'converting'), at: 56_000 },
    ], base);
    // The last figure was 0 s left at 50 s for 100 MB: 2 MB/s; 60 MB take 30 s, 5 s of them gone.
    expect(s.remaining).toBeNull();
    expect(queueTimeLeft(s)).toBeCloseTo(25);
  });

  it('is null when nothing runs', () => {
    expect(queueTimeLeft(initialIngest)).toBeNull();
  });
});
