import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FakeBackend, markSnippet, queryTerms } from './fake';
import type { Progress, SearchRequest } from './types';

const req = (query: string, extra: Partial<SearchRequest> = {}): SearchRequest => ({
  query,
  limit: 20,
  documents: [],
  chunk_types: [],
  section: null,
  ...extra,
});

describe('FakeBackend search', () => {
  it('matches query terms case-insensitively over its chunks', async () => {
    const b = new FakeBackend();
    const hits = await b.search(req('INTEGRITY'));
    expect(hits.length).toBeGreaterThanOrEqual(2);
    for (const h of hits) expect(h.content.toLowerCase()).toContain('integrity');
    expect(hits[0].snippet).toMatch(/\[\[integrity\]\]/i);
    expect(await b.search(req('xylophone'))).toEqual([]);
    expect(await b.search(req('   '))).toEqual([]);
  });

  it('gives every hit the per-channel timings of its search', async () => {
    const b = new FakeBackend();
    const hits = await b.search(req('integrity'));
    const t = hits[0].timings_ms;
    for (const h of hits) expect(h.timings_ms).toEqual(t);
    for (const ms of [t.embed, t.dense, t.keyword, t.exact]) expect(ms).toBeGreaterThan(0);
    expect(t.total).toBeGreaterThanOrEqual(t.embed + t.dense + t.keyword + t.exact);
  });

  it('answers a rule number with the exact channel', async () => {
    const b = new FakeBackend();
    const hits = await b.search(req('2.1.3'));
    expect(hits[0].section_id).toBe('sec_2_1_3');
    expect(hits[0].exact).not.toBeNull();
    expect(hits[0].crumbs.map((c) => c.heading)).toEqual(['2 Core Principles', '2.1 Principles for Authorised Persons', '2.1.3 Principle 3 – Management, systems and controls']);
    expect(hits[0].citation).toContain('GEN 2.1.3');
  });

  it('applies document, chunk type and section filters', async () => {
    const b = new FakeBackend();
    const glo = await b.search(req('authorised person', { documents: ['GLO'] }));
    expect(glo.length).toBeGreaterThan(0);
    expect(new Set(glo.map((h) => h.label))).toEqual(new Set(['GLO']));
    const reqs = await b.search(req('authorised person', { chunk_types: ['requirement'] }));
    expect(reqs.length).toBeGreaterThan(0);
    expect(new Set(reqs.map((h) => h.chunk_type))).toEqual(new Set(['requirement']));
    const within = await b.search(req('authorised person', { section: { doc: '1', section_id: 'sec_2_1' } }));
    expect(within.length).toBeGreaterThan(0);
    for (const h of within) expect(h.crumbs.map((c) => c.section_id)).toContain('sec_2_1');
    const limited = await b.search(req('authorised person', { limit: 2 }));
    expect(limited).toHaveLength(2);
  });

  it('marks snippets and drops stop words', () => {
    expect(queryTerms('the Rules of GEN 2.1.3.')).toEqual(['rules', 'gen', '2.1.3']);
    expect(markSnippet('Keep records. RECORDS matter.', ['records'])).toBe('Keep [[records]]. [[RECORDS]] matter.');
  });
});

describe('FakeBackend reading', () => {
  it('gives outlines with parent_ord and sections with term and link marks', async () => {
    const b = new FakeBackend();
    const o = await b.outline('GEN');
    expect(o.document.label).toBe('GEN');
    const s211 = o.sections.find((s) => s.section_id === 'sec_2_1_1')!;
    expect(o.sections[s211.parent_ord!].section_id).toBe('sec_2_1');

    const v = await b.show('1', 'sec_2_1_2');
    const term = v.terms.find((t) => t.key === 'authorised_person')!;
    expect(v.text.slice(term.start, term.end)).toBe('Authorised Person');
    const link = v.links.find((l) => l.label === 'Rule 2.1.3')!;
    expect(v.text.slice(link.start, link.end)).toBe('Rule 2.1.3');
    expect(link.target_section).toBe('sec_2_1_3');

    const unresolved = (await b.show('GEN', 'sec_2_1_3')).links.find((l) => l.document === 'COBS')!;
    expect(unresolved.target_section).toBeNull();
    await expect(b.show('GEN', 'sec_9')).rejects.toMatchObject({ code: 'not_found' });
    await expect(b.outline('NOPE')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists references out of and into a section, across documents', async () => {
    const b = new FakeBackend();
    const r = await b.references('GEN', 'sec_2_1_1');
    const from = r.incoming.map((x) => `${x.doc_id}:${x.from_section}`);
    expect(from).toContain('2:s_1_1_2');
    expect(from).toContain('1:sec_2_2');
  });

  it('defines terms, with scope', async () => {
    const b = new FakeBackend();
    const d = await b.define('authorised persons');
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ document: 'GLO', section_id: 's_1_1_2', term: 'Authorised Person' });
    const all = await b.definitions();
    expect(all.find((x) => x.term === 'Senior Management')?.scope_section).toBe('sec_2');
  });

  it('renders a PDF page image as a valid PNG with highlights for a chunk', async () => {
    const b = new FakeBackend();
    const img = await b.pageImage('GEN', 3, 1007);
    const bytes = Buffer.from(img.png_base64, 'base64');
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.readUInt32BE(16)).toBe(img.width);
    expect(bytes.readUInt32BE(20)).toBe(img.height);
    const idatLen = bytes.readUInt32BE(33);
    expect(bytes.subarray(37, 41).toString()).toBe('IDAT');
    const raw = inflateSync(bytes.subarray(41, 41 + idatLen));
    expect(raw.length).toBe(img.height * (img.width + 1));
    // Every line of the chunk's section: its heading and its text's lines, top to bottom.
    expect(img.highlights.length).toBeGreaterThan(2);
    const tops = img.highlights.map((h) => h.y);
    expect(tops).toEqual([...tops].sort((x, y) => x - y));
    await expect(b.pageImage('GLO', 1, null)).rejects.toMatchObject({ code: 'invalid' });
  });

  it('draws a page at the width asked for, its highlights in that image’s pixels', async () => {
    const b = new FakeBackend();
    const full = await b.pageImage('GEN', 3, 1007);
    const quick = await b.pageImage('GEN', 3, 1007, 360);
    expect(quick.width).toBe(360);
    expect(full.width).toBeGreaterThan(quick.width);
    expect(Buffer.from(quick.png_base64, 'base64').readUInt32BE(16)).toBe(360);
    expect(quick.height / quick.width).toBeCloseTo(full.height / full.width, 2);
    expect(quick.highlights).toHaveLength(full.highlights.length);
    // The same place on the page, as a share of each image.
    quick.highlights.forEach((h, i) => {
      expect(h.y / quick.height).toBeCloseTo(full.highlights[i].y / full.height, 1);
      expect(h.w / quick.width).toBeCloseTo(full.highlights[i].w / full.width, 1);
    });
  });

  it('lists the references written in a section’s subsections too, each with the part it is written in', async () => {
    const b = new FakeBackend();
    const r = await b.references('GEN', 'sec_2_1');
    expect(r.outgoing.map((x) => [x.from_section, x.label])).toEqual([
      ['sec_2_1_2', 'Rule 2.1.3'],
      ['sec_2_1_3', 'Rule 6.1.1'],
      ['sec_2_1_4', 'Rule 2.1.3'],
    ]);
  });
});

describe('FakeBackend ingest', () => {
  it('reports progress per file; a failed file does not stop the others', async () => {
    const b = new FakeBackend({ delayMs: 0 });
    const events: Progress[] = [];
    const report = await b.ingest(['/in/COBS Conduct of Business.pdf', '/in/damaged.pdf', '/in/notes.bin', '/in/Extra.md'], (p) => events.push(p));
    expect(report.indexed).toEqual(['/in/COBS Conduct of Business.pdf', '/in/Extra.md']);
    expect(report.failed.map((f) => f.path)).toEqual(['/in/damaged.pdf', '/in/notes.bin']);
    const last = new Map(events.map((e) => [e.file, e]));
    expect(last.get('/in/damaged.pdf')?.stage).toBe('failed');
    expect(last.get('/in/damaged.pdf')?.error?.message).toMatch(/damaged/);
    expect(last.get('/in/Extra.md')?.stage).toBe('indexed');
    expect(events.some((e) => e.stage === 'embedding' && e.done > 0 && e.done < e.total)).toBe(true);
    const docs = await b.libraryDocuments();
    expect(docs.map((d) => d.document.label)).toContain('COBS');
    // COBS resolves GEN 2.1.3's reference now.
    const v = await b.show('GEN', 'sec_2_1_3');
    expect(v.links.find((l) => l.document === 'COBS' && l.label === 'Rule 6.1.1')?.target_section).toBe('sec_6_1_1');
    // A second ingest of the same file is unchanged.
    const again = await b.ingest(['/in/Extra.md'], () => {});
    expect(again.unchanged).toEqual(['/in/Extra.md']);
  });

  it('cancels the remaining files', async () => {
    const b = new FakeBackend({ delayMs: 2 });
    const events: Progress[] = [];
    const running = b.ingest(['/a/One.md', '/a/Two.md', '/a/Three.md'], (p) => {
      events.push(p);
      if (p.file === '/a/One.md' && p.stage === 'embedding') void b.cancelIngest();
    });
    const report = await running;
    expect(report.cancelled).toBe(true);
    const last = new Map(events.map((e) => [e.file, e.stage]));
    expect(last.get('/a/Three.md')).toBe('cancelled');
  });

  it('weighs files as an ingest would read them: a folder its library files, an unreadable kind nothing', async () => {
    const b = new FakeBackend({ delayMs: 0 });
    const gen = (await b.libraryDocuments())[0].document;
    const [inLibrary, cobs, folder, binary, pdf, text] = await b.fileSizes([
      gen.path,
      '/in/COBS Conduct of Business.pdf',
      '/in/Rulebooks 2026',
      '/in/notes.bin',
      '/in/Market Rules.pdf',
      '/in/Market Rules.txt',
    ]);
    expect(inLibrary).toBe(gen.size);
    // The folder holds COBS and a file Folio does not read.
    expect(folder).toBe(cobs);
    expect(binary).toBe(0);
    expect(pdf).toBeGreaterThan(text);
    expect(text).toBeGreaterThan(0);
  });

  it('renames a document, and gives it back its own title', async () => {
    const b = new FakeBackend();
    const renamed = await b.renameDocument('GEN', '  ADGM General Rules  ');
    expect(renamed).toMatchObject({ label: 'GEN', title: 'ADGM General Rules', renamed: true });
    expect((await b.libraryDocuments())[0].document.title).toBe('ADGM General Rules');
    expect((await b.search(req('integrity')))[0].document).toBe('ADGM General Rules');
    expect(await b.renameDocument('1', '')).toMatchObject({ title: 'General Rulebook', renamed: false });
    await b.renameDocument('1', 'Mine');
    expect(await b.renameDocument('1', null)).toMatchObject({ title: 'General Rulebook', renamed: false });
    await expect(b.renameDocument('NOPE', 'x')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('removes documents and says why it cannot', async () => {
    const b = new FakeBackend();
    await b.removeDocument('GLO');
    expect((await b.libraryDocuments()).map((d) => d.document.label)).toEqual(['GEN']);
    await expect(b.removeDocument('GLO')).rejects.toEqual({ code: 'not_found', message: 'No document "GLO" in the library.' });
  });
});

describe('FakeBackend contexts', () => {
  const ingest = async (b: FakeBackend, paths: string[]) => b.ingest(paths, () => {});

  it('reports no LLM usage with structural contexts', async () => {
    const b = new FakeBackend({ delayMs: 0 });
    expect((await ingest(b, ['/in/COBS Conduct of Business.pdf'])).contexts).toEqual([]);
  });

  it('reports LLM usage per document; cached answers are hits, a failed request a fallback retried later', async () => {
    const b = new FakeBackend({ delayMs: 0 });
    await b.saveSettings({ ...(await b.getSettings()), context_provider: 'anthropic' });
    const first = await ingest(b, ['/in/COBS Conduct of Business.pdf', '/in/flaky-notes.md']);
    const [cobs, flaky] = first.contexts;
    expect(cobs).toMatchObject({ path: '/in/COBS Conduct of Business.pdf', provider: 'anthropic', model: 'claude-haiku-4-5', hits: 0, fallbacks: 0 });
    expect(cobs.requests).toBe(cobs.misses);
    expect(cobs.cache_write_tokens).toBeGreaterThan(0);
    expect(cobs.cache_read_tokens).toBeGreaterThan(0);
    expect(cobs.cost).toBeGreaterThan(0);
    expect(flaky).toMatchObject({ requests: 0, misses: 1, fallbacks: 1, input_tokens: 0 });

    const id = async (path: string) => String((await b.libraryDocuments()).find((d) => d.document.path === path)!.document.id);
    const again = await b.reindexDocument(await id('/in/COBS Conduct of Business.pdf'));
    expect(again.contexts[0]).toMatchObject({ hits: cobs.misses, misses: 0, requests: 0, cost: 0 });
    const retried = await b.reindexDocument(await id('/in/flaky-notes.md'));
    expect(retried.contexts[0]).toMatchObject({ requests: 1, misses: 1, fallbacks: 0 });
  });
});

describe('FakeBackend settings', () => {
  it('asks for a re-index when the model changes', async () => {
    const b = new FakeBackend();
    const s = await b.getSettings();
    const same = await b.saveSettings({ ...s, rrf_k: 30 });
    expect(same.needs_reindex).toBe(false);
    const changed = await b.saveSettings({ ...s, model: 'fast' });
    expect(changed.needs_reindex).toBe(true);
    expect(changed.reason).toMatch(/model/);
  });

  it('keeps key status without revealing keys', async () => {
    const b = new FakeBackend();
    expect((await b.keyStatus('anthropic')).set).toBe(false);
    const st = await b.setKey('anthropic', 'sk-secret');
    expect(st).toEqual({ provider: 'anthropic', set: true, source: 'keychain', keychain_available: true, keychain: 'macOS Keychain' });
    expect(JSON.stringify(st)).not.toContain('sk-secret');
    expect((await b.removeKey('anthropic')).set).toBe(false);
  });
});
