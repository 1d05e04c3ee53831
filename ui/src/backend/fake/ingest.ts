// Adding files to the sample library, as the engine reports it: every file queued, then its
// stages with progress (converting, contextualizing, embedding, indexing) and the time left; an
// unsupported or damaged file fails with the engine's code and stays listed until it changes;
// cancelling stops before the next step. An LLM context provider reports what it used.
import type { ProgressHandler } from '../index';
import type { BackendError, ContextRun, ErrorCode, FileFailure, IngestReport, Progress, Settings, Stage } from '../types';
import { isLlmProvider, type LlmProvider } from '../providers';
import type { SampleLibrary } from './library';
import { sampleSpecFor, type FakeDoc } from './samples';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const SUPPORTED = new Set(['pdf', 'docx', 'html', 'htm', 'xhtml', 'epub', 'md', 'markdown', 'txt', 'xml']);

/** About what a file of each kind weighs (a rulebook chapter), for files the sample does not hold. */
const TYPICAL_BYTES: Record<string, number> = { pdf: 480_000, epub: 300_000, docx: 120_000, xml: 150_000, html: 90_000, htm: 90_000, xhtml: 90_000 };

export class SampleIngest {
  private cancelRequested = false;
  /** Chunks whose LLM context is cached, as provider:model:path:ord. */
  private contextCache = new Set<string>();
  /** Documents contextualized at least once, as provider:model:path. */
  private contextAttempts = new Set<string>();
  /** Files that could not be added, by path. */
  readonly failed = new Map<string, FileFailure>();

  constructor(
    private lib: SampleLibrary,
    private delayMs: number,
    private settings: () => Settings,
  ) {}

  cancel(): void {
    this.cancelRequested = true;
  }

  /** Files and folders to files: a sample folder holds two files. */
  expand(paths: string[]): string[] {
    const files: string[] = [];
    for (const p of paths) {
      const name = p.split(/[\\/]/).pop() ?? p;
      if (!name.includes('.')) {
        files.push(`${p}/COBS Conduct of Business.pdf`, `${p}/scanned-notes.bin`);
      } else {
        files.push(p);
      }
    }
    return files;
  }

  /**
   * The bytes an ingest would read for a path, as the engine counts them: a folder's library files
   * together, a file Folio does not read 0. A file already in the library or a sample weighs what
   * its text makes it; any other file a plausible size for its kind (a PDF more than a text),
   * varied by its name.
   */
  bytesOf(path: string): number {
    const files = this.expand([path]);
    if (files.length > 1 || files[0] !== path) return files.reduce((n, f) => n + this.bytesOf(f), 0);
    const name = path.split(/[\\/]/).pop() ?? path;
    const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
    if (!SUPPORTED.has(ext)) return 0;
    const known = this.lib.docs.find((d) => d.row.path === path);
    if (known) return known.row.size;
    const spec = sampleSpecFor(path, name, ext, () => false);
    if (spec.parsed.document.source_path !== null) return (spec.parsed.document.text ?? '').length * 7 + 2048;
    let h = 0;
    for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return (TYPICAL_BYTES[ext] ?? 50_000) + (h % 1000) * 97;
  }

  /** Adds the files (`force`: again even when unchanged), reporting progress as the engine does. */
  async run(files: string[], onProgress: ProgressHandler | undefined, force: boolean): Promise<IngestReport> {
    const began = Date.now();
    this.cancelRequested = false;
    const report: IngestReport = { indexed: [], unchanged: [], failed: [], cancelled: false, chunks: 0, seconds: 0, contexts: [] };
    const provider = this.settings().context_provider;
    const emit = (file: string, i: number, stage: Stage, done = 0, total = 0, error: BackendError | null = null) => {
      // As the engine does: the time left from the rate so far, once a file is done.
      const elapsed = (Date.now() - began) / 1000;
      const remaining_s = i > 0 && stage !== 'queued' ? (elapsed / i) * (files.length - i) : null;
      const p: Progress = { file, file_index: i, files: files.length, stage, done, total, error, remaining_s };
      onProgress?.(p);
    };
    files.forEach((f, i) => emit(f, i, 'queued'));
    for (let i = 0; i < files.length; i++) {
      const file = files[i];
      if (this.cancelRequested) {
        report.cancelled = true;
        emit(file, i, 'cancelled');
        continue;
      }
      const name = file.split(/[\\/]/).pop() ?? file;
      const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
      const existing = this.lib.docs.find((d) => d.row.path === file);
      if (existing && !force) {
        await sleep(this.delayMs);
        emit(file, i, 'unchanged', 1, 1);
        report.unchanged.push(file);
        continue;
      }
      const fail = async (stage: Stage, code: ErrorCode, message: string) => {
        if (stage !== 'queued') emit(file, i, stage, 0, 1);
        await sleep(this.delayMs);
        emit(file, i, 'failed', 0, 0, { code, message });
        report.failed.push({ path: file, code, message });
        const at = Math.floor(Date.now() / 1000);
        this.failed.set(file, { path: file, mtime: at, size: 0, code, message, at });
      };
      if (!SUPPORTED.has(ext)) {
        await fail('converting', 'unsupported', `unsupported file type: ${ext ? `.${ext}` : 'no extension'}`);
        continue;
      }
      if (/corrupt|damaged/i.test(name)) {
        await fail('converting', 'corrupt', 'the file is truncated or corrupt: the PDF is damaged (its cross-reference table is missing)');
        continue;
      }
      const total = 8;
      const steps: [Stage, number][] = [
        ['converting', 0],
        ['analysing', 0],
        ['contextualizing', 0],
        ['embedding', 0],
        ['embedding', 3],
        ['embedding', 6],
        ['embedding', total],
        ['indexing', total],
      ];
      let cancelled = false;
      for (const [stage, done] of steps) {
        if (this.cancelRequested) {
          cancelled = true;
          break;
        }
        emit(file, i, stage, done, total);
        await sleep(this.delayMs);
      }
      if (cancelled) {
        report.cancelled = true;
        emit(file, i, 'cancelled');
        continue;
      }
      let doc: FakeDoc;
      if (existing) {
        existing.row.status = 'indexed';
        existing.row.mtime = Math.floor(Date.now() / 1000);
        doc = existing;
      } else {
        doc = this.lib.add(sampleSpecFor(file, name, ext, (label) => this.lib.docs.some((d) => d.row.label === label)));
      }
      report.chunks += doc.chunks.length;
      if (isLlmProvider(provider)) report.contexts.push(this.contextRun(doc, provider));
      emit(file, i, 'indexed', total, total);
      report.indexed.push(file);
      this.failed.delete(file);
    }
    report.seconds = Math.round((Date.now() - began) / 100) / 10;
    return report;
  }

  /**
   * What contextualizing a document with an LLM used. Each chunk's answer is cached (by provider,
   * model, document and chunk), so a chunk is asked once; Anthropic writes the document to its
   * prompt cache on the first request and reads it on the others. The first attempt at a file
   * named "flaky…" loses one request: that chunk keeps its structural context and is asked again
   * on the next ingest.
   */
  private contextRun(d: FakeDoc, provider: LlmProvider): ContextRun {
    const settings = this.settings();
    const model = provider === 'anthropic' ? settings.anthropic_model : settings.openai_model;
    const prefix = `${provider}:${model}:${d.row.path}`;
    const firstAttempt = !this.contextAttempts.has(prefix);
    this.contextAttempts.add(prefix);
    const run: ContextRun = {
      path: d.row.path,
      provider,
      model,
      requests: 0,
      input_tokens: 0,
      output_tokens: 0,
      cache_write_tokens: 0,
      cache_read_tokens: 0,
      hits: 0,
      misses: 0,
      fallbacks: 0,
      excerpted: 0,
      cost: 0,
    };
    const docTokens = Math.ceil(d.text.length / 4) + 60;
    d.chunks.forEach(({ text: body, index }) => {
      const key = `${prefix}:${index}`;
      if (this.contextCache.has(key)) {
        run.hits++;
        return;
      }
      run.misses++;
      // A failed request's usage is not counted (the engine adds only answers' usage).
      if (firstAttempt && run.fallbacks === 0 && /flaky/i.test(d.row.path)) {
        run.fallbacks++;
        return;
      }
      run.requests++;
      run.input_tokens += Math.ceil(body.length / 4) + 90;
      if (provider === 'anthropic') {
        if (run.cache_write_tokens === 0) run.cache_write_tokens = docTokens;
        else run.cache_read_tokens += docTokens;
      } else {
        run.input_tokens += docTokens;
      }
      run.output_tokens += 45 + (body.length % 40);
      this.contextCache.add(key);
    });
    // Claude Haiku 4.5's list prices per million tokens; a local OpenAI-compatible server is free.
    if (provider === 'anthropic') {
      run.cost = (run.input_tokens + run.output_tokens * 5 + run.cache_write_tokens * 1.25 + run.cache_read_tokens * 0.1) / 1e6;
    }
    return run;
  }
}
