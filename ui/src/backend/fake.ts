// An in-memory sample library implementing `Backend`, so the UI runs in a plain browser and in
// component tests. Its answers are computed from its sample documents (search is a simple
// case-insensitive term match), not canned.
import type { Backend, ProgressHandler } from './index';
import type {
  About,
  BackendError,
  Backlinks,
  ContextRun,
  Crumb,
  DefinitionHit,
  DocumentRow,
  DocumentSummary,
  FailureRow,
  Hit,
  IngestReport,
  KeyStatus,
  LibraryStatus,
  LinkMark,
  MissingDocument,
  Outline,
  PageImage,
  Progress,
  RepairReport,
  RefRow,
  SearchRequest,
  SectionRow,
  SectionView,
  Settings,
  SettingsChange,
  Stage,
  SyncReport,
  TableMark,
  TermMark,
  Timings,
  WatchedFolder,
} from './types';
import { isLlmProvider, type LlmProvider } from './providers';
import { writeClipboard } from './clipboard';
import { encodeGrayPng } from './png';
import { formatPages } from '../text/format';

/**
 * Tables in a sample body: each run of lines with tab-separated cells, its first `headerRows`
 * rows heading the columns (the engine stores what the converter found instead).
 */
function tableMarks(body: string, headerRows: number): TableMark[] {
  const out: TableMark[] = [];
  let at = 0;
  let open: TableMark | null = null;
  for (const line of body.split('\n')) {
    const end = at + line.length;
    if (line.includes('\t')) {
      if (open) open.end = end;
      else open = { start: at, end, header_rows: headerRows };
    } else if (open) {
      out.push(open);
      open = null;
    }
    at = end + 1;
  }
  if (open) out.push(open);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sample documents

type SectionSpec = {
  number: string | null;
  title: string;
  level: number;
  /** Index of the parent in the same list. */
  parent: number | null;
  body: string;
  type: string;
  pages?: [number, number];
};

type DefinitionSpec = { term: string; section: number; scope: number | null };

type DocSpec = {
  label: string;
  title: string;
  path: string;
  format: string;
  pageCount: number | null;
  sections: SectionSpec[];
  definitions: DefinitionSpec[];
};

type FakeDoc = {
  row: DocumentRow;
  sections: SectionRow[];
  bodies: string[];
  /** Offset of each body in the document text. */
  bodyStarts: number[];
  types: string[];
  definitions: DefinitionHit[];
};

const GEN: DocSpec = {
  label: 'GEN',
  title: 'General Rulebook',
  path: '/Users/analyst/Rulebooks/GEN General Rulebook.pdf',
  format: 'pdf',
  pageCount: 5,
  sections: [
    {
      number: '1',
      title: 'Introduction',
      level: 1,
      parent: null,
      type: 'text',
      pages: [1, 1],
      body:
        'This module sets out the general rules that apply to every Authorised Person. It is to be read ' +
        'together with the Glossary (GLO), which defines the capitalised terms used in it.',
    },
    {
      number: '1.1',
      title: 'Application',
      level: 2,
      parent: 0,
      type: 'requirement',
      pages: [1, 1],
      body:
        'This rulebook applies to every Authorised Person and to every Approved Individual in respect of any ' +
        'Regulated Activity carried on in or from the jurisdiction. Chapter 2 does not apply to a representative ' +
        'office, except for Rule 2.1.3.',
    },
    {
      number: '1.2',
      title: 'Interpretation',
      level: 2,
      parent: 0,
      type: 'definition',
      pages: [1, 2],
      body:
        'In Chapter 2, Senior Management means the persons who are responsible for the day-to-day management ' +
        'of an Authorised Person and who report directly to its governing body.',
    },
    {
      number: '2',
      title: 'Core Principles',
      level: 1,
      parent: null,
      type: 'text',
      pages: [2, 2],
      body:
        'The Principles in this chapter are a general statement of the fundamental obligations of Authorised ' +
        'Persons and Approved Individuals.',
    },
    {
      number: '2.1',
      title: 'Principles for Authorised Persons',
      level: 2,
      parent: 3,
      type: 'text',
      pages: [2, 2],
      body: 'The following Principles apply to every Authorised Person.',
    },
    {
      number: '2.1.1',
      title: 'Principle 1 – Integrity',
      level: 3,
      parent: 4,
      type: 'requirement',
      pages: [2, 2],
      body:
        'An Authorised Person must observe high standards of integrity and fair dealing in carrying on its ' +
        'Regulated Activities.',
    },
    {
      number: '2.1.2',
      title: 'Principle 2 – Due skill, care and diligence',
      level: 3,
      parent: 4,
      type: 'requirement',
      pages: [3, 3],
      body:
        'An Authorised Person must act with due skill, care and diligence in carrying on its business. This ' +
        'Rule is to be read together with Rule 2.1.3.',
    },
    {
      number: '2.1.3',
      title: 'Principle 3 – Management, systems and controls',
      level: 3,
      parent: 4,
      type: 'requirement',
      pages: [3, 3],
      body:
        'An Authorised Person must ensure that its affairs are managed effectively and responsibly by its ' +
        'Senior Management.\n\nAn Authorised Person must have adequate systems and controls to enable it to ' +
        'comply with the Rules, including the record-keeping requirements in COBS Rule 6.1.1.',
    },
    {
      number: '2.1.4',
      title: 'Guidance on Principle 3',
      level: 3,
      parent: 4,
      type: 'guidance',
      pages: [3, 4],
      body:
        "The systems and controls referred to in Rule 2.1.3 should be proportionate to the nature, scale and " +
        "complexity of the Authorised Person's business. Records should be kept for at least six years.",
    },
    {
      number: '2.2',
      title: 'Principles for Approved Individuals',
      level: 2,
      parent: 3,
      type: 'requirement',
      pages: [4, 4],
      body:
        'Every Approved Individual must act with integrity in carrying out a Controlled Function, and must deal ' +
        'with the regulator in an open and co-operative way. See also Rule 2.1.1 and Rule 2.4.9.',
    },
    {
      number: '2.3',
      title: 'Record retention',
      level: 2,
      parent: 3,
      type: 'table',
      pages: [5, 5],
      body:
        'Records are kept for at least these periods.\n\n' +
        'Record\tRetention period\nClient agreements\t6 years\nTransaction records\t6 years\nComplaints\t3 years',
    },
  ],
  definitions: [{ term: 'Senior Management', section: 2, scope: 3 }],
};

const GLO: DocSpec = {
  label: 'GLO',
  title: 'Glossary',
  path: '/Users/analyst/Rulebooks/GLO Glossary.docx',
  format: 'docx',
  pageCount: null,
  sections: [
    {
      number: '1',
      title: 'Defined terms',
      level: 1,
      parent: null,
      type: 'text',
      body: 'The terms below have the meanings given here wherever they appear in the rulebooks.',
    },
    {
      number: null,
      title: 'Approved Individual',
      level: 2,
      parent: 0,
      type: 'definition',
      body:
        'Approved Individual means an individual who has been approved by the regulator to perform a ' +
        'Controlled Function in relation to an Authorised Person.',
    },
    {
      number: null,
      title: 'Authorised Person',
      level: 2,
      parent: 0,
      type: 'definition',
      body:
        'Authorised Person means a person, other than an Approved Individual, who holds a licence to carry on ' +
        'one or more Regulated Activities and who is bound by GEN Rule 2.1.1.',
    },
    {
      number: null,
      title: 'Controlled Function',
      level: 2,
      parent: 0,
      type: 'definition',
      body: 'Controlled Function means a function that the regulator has designated as one requiring approval.',
    },
    {
      number: null,
      title: 'Regulated Activity',
      level: 2,
      parent: 0,
      type: 'definition',
      body:
        'Regulated Activity means an activity specified in the schedule to the financial services law, when ' +
        'carried on by way of business.',
    },
  ],
  definitions: [
    { term: 'Approved Individual', section: 1, scope: null },
    { term: 'Authorised Person', section: 2, scope: null },
    { term: 'Controlled Function', section: 3, scope: null },
    { term: 'Regulated Activity', section: 4, scope: null },
  ],
};

/** The template used when a file whose name mentions "Conduct of Business" is ingested. */
const COBS_SECTIONS: SectionSpec[] = [
  {
    number: '6',
    title: 'Record keeping',
    level: 1,
    parent: null,
    type: 'text',
    pages: [1, 1],
    body: 'This chapter sets out the record-keeping requirements for every Authorised Person.',
  },
  {
    number: '6.1.1',
    title: 'General record-keeping requirement',
    level: 2,
    parent: 0,
    type: 'requirement',
    pages: [1, 2],
    body:
      'An Authorised Person must keep orderly records of its business sufficient to show compliance with ' +
      'GEN Rule 2.1.3. Records must be retained for at least six years.',
  },
];

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

function sectionId(spec: SectionSpec): string {
  return spec.number ? `sec_${spec.number.replace(/\./g, '_')}` : `sec_${slug(spec.title)}`;
}

function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').repeat(8);
}

function buildDoc(id: number, spec: DocSpec, mtime: number): FakeDoc {
  let text = '';
  const sections: SectionRow[] = [];
  const bodies: string[] = [];
  const bodyStarts: number[] = [];
  spec.sections.forEach((s, ord) => {
    const heading = s.number ? `${s.number} ${s.title}` : s.title;
    const start = text.length;
    text += `${heading}\n`;
    bodyStarts.push(text.length);
    text += s.body;
    const end = text.length;
    text += '\n\n';
    sections.push({
      doc_id: id,
      ord,
      section_id: sectionId(s),
      number: s.number,
      title: s.title,
      heading,
      level: s.level,
      parent_ord: s.parent,
      pages: s.pages ? { start: s.pages[0], end: s.pages[1] } : null,
      span: { start, end },
    });
    bodies.push(s.body);
  });
  const definitions: DefinitionHit[] = spec.definitions.map((d) => {
    const body = bodies[d.section];
    const at = Math.max(0, body.indexOf(d.term));
    return {
      document: spec.label,
      doc_id: id,
      term: d.term,
      key: d.term.toLowerCase(),
      text: body,
      section_id: sections[d.section].section_id,
      scope_section: d.scope === null ? null : sections[d.scope].section_id,
      span: { start: bodyStarts[d.section] + at, end: bodyStarts[d.section] + body.length },
    };
  });
  return {
    row: {
      id,
      path: spec.path,
      label: spec.label,
      title: spec.title,
      format: spec.format,
      content_hash: hashOf(text),
      mtime,
      size: text.length * 7 + 2048,
      page_count: spec.pageCount,
      status: 'indexed',
    },
    sections,
    bodies,
    bodyStarts,
    types: spec.sections.map((s) => s.type),
    definitions,
  };
}

// ---------------------------------------------------------------------------------------------
// Text helpers

const STOP_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'to', 'in', 'for', 'or', 'is', 'on', 'by', 'with']);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Query terms: lower-cased words (dotted numbers kept whole), stop words dropped unless nothing else is left. */
export function queryTerms(query: string): string[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}.'’-]+/u)
    .map((w) => w.replace(/^[.'’-]+|[.'’-]+$/g, ''))
    .filter((w) => w.length > 0);
  const content = words.filter((w) => !STOP_WORDS.has(w));
  return [...new Set(content.length > 0 ? content : words)];
}

function countOccurrences(haystack: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    count++;
    at = haystack.indexOf(needle, at + needle.length);
  }
  return count;
}

/** The text with every occurrence of the terms marked `[[like this]]`, cut to ~300 characters around the first. */
export function markSnippet(text: string, terms: string[], width = 300): string {
  const sorted = [...terms].filter(Boolean).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return text.slice(0, width);
  const re = new RegExp(sorted.map(escapeRegExp).join('|'), 'gi');
  const first = text.search(re);
  let from = 0;
  let to = text.length;
  if (text.length > width) {
    from = Math.max(0, (first === -1 ? 0 : first) - Math.floor(width / 3));
    to = Math.min(text.length, from + width);
    // Widen to word boundaries.
    while (from > 0 && /\S/.test(text[from - 1])) from--;
    while (to < text.length && /\S/.test(text[to])) to++;
  }
  const window = text.slice(from, to).replace(re, (m) => `[[${m}]]`);
  return `${from > 0 ? '… ' : ''}${window}${to < text.length ? ' …' : ''}`;
}

function notFound(message: string): BackendError {
  return { code: 'not_found', message };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const SUPPORTED = new Set(['pdf', 'docx', 'html', 'htm', 'xhtml', 'epub', 'md', 'markdown', 'txt', 'xml']);

const DEFAULT_SETTINGS: Settings = {
  library_dir: '/Users/analyst/Library/Application Support/Folio/library',
  model: 'minilm',
  context_provider: 'structural',
  anthropic_model: 'claude-haiku-4-5',
  openai_base_url: 'http://localhost:11434/v1',
  openai_model: 'llama3.1',
  rrf_k: 60,
  weights: { dense: 1, keyword: 1, exact: 2 },
  ocr: true,
};

export type FakeOptions = {
  /** Milliseconds between simulated ingest steps. */
  delayMs?: number;
  /** Start with the two sample documents (default) or an empty library. */
  empty?: boolean;
  /** Whether this window holds the library's write lock (default true). */
  writable?: boolean;
  /** Files an interrupted ingest left half-written, rolled back on open (default none). */
  repaired?: string[];
  /** The library's catalog is damaged: it does not open until `repairLibrary` (default false). */
  damaged?: boolean;
};

// ---------------------------------------------------------------------------------------------

export class FakeBackend implements Backend {
  readonly kind = 'fake' as const;
  private docs: FakeDoc[] = [];
  private nextId = 1;
  private delayMs: number;
  private cancelRequested = false;
  private settings: Settings = structuredCloneSafe(DEFAULT_SETTINGS);
  private keys = new Map<string, string>();
  /** Chunks whose LLM context is cached, as provider:model:path:ord. */
  private contextCache = new Set<string>();
  /** Documents contextualized at least once, as provider:model:path. */
  private contextAttempts = new Set<string>();
  private pages = new Map<string, PageImage>();
  private writable: boolean;
  private repaired: string[];
  private damaged: boolean;
  private watched: string[] = [];
  private failed = new Map<string, FailureRow>();
  private changeListeners = new Set<(r: SyncReport) => void>();
  private openListeners = new Set<(paths: string[]) => void>();

  constructor(options: FakeOptions = {}) {
    this.delayMs = options.delayMs ?? 120;
    this.writable = options.writable ?? true;
    this.repaired = [...(options.repaired ?? [])];
    this.damaged = options.damaged ?? false;
    if (!options.empty) {
      this.addDoc(GEN);
      this.addDoc(GLO);
    }
  }

  private addDoc(spec: DocSpec): FakeDoc {
    const doc = buildDoc(this.nextId++, spec, 1_760_000_000 + this.nextId * 3600);
    this.docs.push(doc);
    return doc;
  }

  private find(doc: string): FakeDoc {
    const wanted = doc.trim();
    const found = this.docs.find((d) => String(d.row.id) === wanted || d.row.label.toLowerCase() === wanted.toLowerCase());
    if (!found) throw notFound(`No document "${doc}" in the library.`);
    return found;
  }

  private findSection(d: FakeDoc, id: string): SectionRow {
    const s =
      d.sections.find((x) => x.section_id === id) ??
      d.sections.find((x) => x.number !== null && x.number === id.replace(/^(?:sec_)/, '').replace(/_/g, '.'));
    if (!s) throw notFound(`No section "${id}" in ${d.row.label}.`);
    return s;
  }

  private ancestors(d: FakeDoc, s: SectionRow): SectionRow[] {
    const chain: SectionRow[] = [];
    let cur: SectionRow | undefined = s;
    while (cur) {
      chain.unshift(cur);
      cur = cur.parent_ord === null ? undefined : d.sections[cur.parent_ord];
    }
    return chain;
  }

  private crumbs(d: FakeDoc, s: SectionRow): Crumb[] {
    return this.ancestors(d, s).map((x) => ({ section_id: x.section_id, heading: x.heading }));
  }

  private within(d: FakeDoc, s: SectionRow, ancestorId: string): boolean {
    return this.ancestors(d, s).some((x) => x.section_id === ancestorId);
  }

  // --- references ---------------------------------------------------------------------------

  /** The references written in a section's body, resolved against the current library. */
  private refsOf(d: FakeDoc, s: SectionRow): RefRow[] {
    const body = d.bodies[s.ord];
    const out: RefRow[] = [];
    const re = /\b(?:([A-Z]{2,5})\s+)?Rule\s+(\d+(?:\.\d+)*)/g;
    for (const m of body.matchAll(re)) {
      const prefix = m[1] && m[1] !== d.row.label ? m[1] : null;
      const number = m[2];
      const start = d.bodyStarts[s.ord] + (m.index ?? 0);
      const row: RefRow = {
        doc_id: d.row.id,
        text: m[0],
        label: `Rule ${number}`,
        from_section: s.section_id,
        target_section: null,
        document: prefix,
        container: 'section',
        span: { start, end: start + m[0].length },
        target_doc_id: null,
        target_doc_section: null,
      };
      if (prefix) {
        const other = this.docs.find((x) => x.row.label === prefix);
        const target = other?.sections.find((x) => x.number === number);
        if (other && target) {
          row.target_doc_id = other.row.id;
          row.target_doc_section = target.section_id;
        }
      } else {
        const target = d.sections.find((x) => x.number === number);
        if (target) row.target_section = target.section_id;
      }
      out.push(row);
    }
    return out;
  }

  private allDefinitions(): DefinitionHit[] {
    return this.docs.flatMap((d) => d.definitions);
  }

  private termMarks(d: FakeDoc, s: SectionRow): TermMark[] {
    const body = d.bodies[s.ord];
    const marks: TermMark[] = [];
    for (const def of this.allDefinitions()) {
      if (def.scope_section !== null) {
        const inScope = def.doc_id === d.row.id && (this.within(d, s, def.scope_section) || def.section_id === s.section_id);
        if (!inScope) continue;
      }
      const stem = def.term.endsWith('y') ? `${escapeRegExp(def.term.slice(0, -1))}(?:y|ies)` : `${escapeRegExp(def.term)}s?`;
      const re = new RegExp(`\\b${stem}\\b`, 'g');
      for (const m of body.matchAll(re)) {
        const start = m.index ?? 0;
        const end = start + m[0].length;
        if (marks.some((x) => x.start < end && start < x.end)) continue;
        marks.push({ start, end, term: def.term, key: def.key });
      }
    }
    return marks.sort((a, b) => a.start - b.start);
  }

  /** Test hook: as if another process took (false) or released (true) the write lock. */
  setWritable(writable: boolean): void {
    this.writable = writable;
  }

  /** Test hook: the files reported as rolled back when the library opened. */
  setRepaired(paths: string[]): void {
    this.repaired = [...paths];
  }

  private readOnly(): BackendError {
    return { code: 'read_only', message: 'Another Folio process is changing this library; it is read-only here until it closes.' };
  }

  // --- Backend ------------------------------------------------------------------------------

  /** As the engine answers while a store is damaged. */
  private sound(): void {
    if (this.damaged) {
      throw {
        code: 'damaged',
        message: `the library's catalog (catalog.sqlite) in ${this.settings.library_dir} is damaged (catalog: database disk image is malformed); Repair library (or \`folio repair\`) rebuilds it from the chunk records`,
      };
    }
  }

  async libraryStatus(): Promise<LibraryStatus> {
    this.sound();
    return { dir: this.settings.library_dir, model: this.settings.model, writable: this.writable, repaired: [...this.repaired] };
  }

  async libraryDocuments(): Promise<DocumentSummary[]> {
    this.sound();
    return this.docs.map((d) => ({
      document: { ...d.row },
      stats: {
        sections: d.sections.length,
        chunks: d.bodies.filter((b) => b.trim()).length,
        definitions: d.definitions.length,
        references: d.sections.reduce((n, s) => n + this.refsOf(d, s).length, 0),
      },
      error: null,
    }));
  }

  async search(req: SearchRequest): Promise<Hit[]> {
    this.sound();
    const terms = queryTerms(req.query);
    if (terms.length === 0) return [];
    const docs = req.documents.length ? req.documents.map((x) => this.find(x)) : this.docs;
    const scope = req.section ? { doc: this.find(req.section.doc), id: req.section.section_id } : null;
    type Scored = { d: FakeDoc; s: SectionRow; score: number; exact: boolean };
    const scored: Scored[] = [];
    for (const d of docs) {
      for (const s of d.sections) {
        const body = d.bodies[s.ord];
        if (!body.trim()) continue;
        if (req.chunk_types.length && !req.chunk_types.includes(d.types[s.ord])) continue;
        if (scope && (scope.doc !== d || !this.within(d, s, scope.id))) continue;
        const content = body.toLowerCase();
        const heading = s.heading.toLowerCase();
        let score = 0;
        let exact = false;
        for (const t of terms) {
          score += countOccurrences(content, t) + 2 * countOccurrences(heading, t);
          if (s.number !== null && t === s.number.toLowerCase()) exact = true;
        }
        if (score > 0 || exact) scored.push({ d, s, score: score + (exact ? 10 : 0), exact });
      }
    }
    scored.sort((a, b) => b.score - a.score || a.d.row.id - b.d.row.id || a.s.ord - b.s.ord);
    const limit = req.limit > 0 ? req.limit : 10;
    const exactOrder = scored.filter((x) => x.exact);
    const timings_ms = this.timings(terms.length, scored.length);
    return scored.slice(0, limit).map(({ d, s, score, exact }, i): Hit => {
      const body = d.bodies[s.ord];
      const crumbs = this.crumbs(d, s);
      const pages = s.pages;
      const start = d.bodyStarts[s.ord];
      return {
        chunk_id: d.row.id * 1000 + s.ord,
        score: Math.round((score / (scored[0].score || 1)) * 1000) / 1000,
        doc_id: d.row.id,
        document: d.row.title,
        label: d.row.label,
        path: d.row.path,
        section_id: s.section_id,
        section_ids: [s.section_id],
        parent_chain: [d.row.title, ...crumbs.map((c) => c.heading)],
        crumbs,
        chunk_type: d.types[s.ord],
        pages,
        span: { start, end: start + body.length },
        content: body,
        contextualized: `${d.row.title} › ${crumbs.map((c) => c.heading).join(' › ')}\n\n${body}`,
        snippet: markSnippet(body, terms),
        dense: i < 5 ? { rank: i + 1, score: Math.round((0.82 - i * 0.07) * 1000) / 1000 } : null,
        keyword: score > (exact ? 10 : 0) ? { rank: i + 1, score: Math.round(score * 1.7 * 100) / 100 } : null,
        exact: exact ? { rank: exactOrder.findIndex((x) => x.s === s && x.d === d) + 1, score: 1 } : null,
        citation: `${d.row.label} ${s.number ?? s.title} (${d.row.title}${pages ? `, ${formatPages(pages)}` : ''})`,
        timings_ms: { ...timings_ms },
      };
    });
  }

  /**
   * Plausible per-channel times of one search (the same on each of its hits, as the engine
   * reports them): embedding the query dominates with the MiniLM model; deterministic for tests.
   */
  private timings(terms: number, candidates: number): Timings {
    const round = (ms: number) => Math.round(ms * 100) / 100;
    const chunks = this.docs.reduce((n, d) => n + d.bodies.length, 0);
    const embed = round(this.settings.model === 'fast' ? 0.35 + 0.02 * terms : 5.8 + 0.4 * terms);
    const dense = round(0.6 + 0.01 * chunks);
    const keyword = round(0.3 + 0.05 * terms + 0.01 * candidates);
    const exact = round(0.08 + 0.01 * terms);
    return { embed, dense, keyword, exact, total: round(embed + dense + keyword + exact + 0.25) };
  }

  async outline(doc: string): Promise<Outline> {
    const d = this.find(doc);
    return { document: { ...d.row }, sections: d.sections.map((s) => ({ ...s })) };
  }

  async show(doc: string, sectionId: string): Promise<SectionView> {
    const d = this.find(doc);
    const s = this.findSection(d, sectionId);
    const base = d.bodyStarts[s.ord];
    const links: LinkMark[] = this.refsOf(d, s).map((r) => ({
      start: r.span.start - base,
      end: r.span.end - base,
      label: r.label,
      target_doc_id: r.target_doc_id ?? (r.target_section ? d.row.id : null),
      target_section: r.target_doc_section ?? r.target_section,
      document: r.document,
    }));
    return {
      doc_id: d.row.id,
      document: d.row.title,
      label: d.row.label,
      section: { ...s },
      crumbs: this.crumbs(d, s),
      text: d.bodies[s.ord],
      terms: this.termMarks(d, s),
      links,
      tables: tableMarks(d.bodies[s.ord], d.types[s.ord] === 'table' ? 1 : 0),
      pages: s.pages,
      path: d.row.path,
      format: d.row.format,
    };
  }

  async references(doc: string, sectionId: string): Promise<Backlinks> {
    const d = this.find(doc);
    const s = this.findSection(d, sectionId);
    const outgoing = this.refsOf(d, s);
    const incoming: RefRow[] = [];
    for (const other of this.docs) {
      for (const from of other.sections) {
        for (const r of this.refsOf(other, from)) {
          const same = other === d && r.target_section === s.section_id;
          const cross = r.target_doc_id === d.row.id && r.target_doc_section === s.section_id;
          if (same || cross) incoming.push(r);
        }
      }
    }
    return { outgoing, incoming };
  }

  async define(term: string): Promise<DefinitionHit[]> {
    const key = term.trim().toLowerCase();
    const keys = new Set([key, key.replace(/s$/, ''), key.replace(/ies$/, 'y')]);
    return this.allDefinitions()
      .filter((d) => keys.has(d.key))
      .map((d) => ({ ...d }));
  }

  async definitions(): Promise<DefinitionHit[]> {
    return this.allDefinitions()
      .map((d) => ({ ...d }))
      .sort((a, b) => a.term.localeCompare(b.term));
  }

  // --- ingest -------------------------------------------------------------------------------

  private expand(paths: string[]): string[] {
    const files: string[] = [];
    for (const p of paths) {
      const name = p.split(/[\\/]/).pop() ?? p;
      if (!name.includes('.')) {
        // A folder: the sample folder holds two files.
        files.push(`${p}/COBS Conduct of Business.pdf`, `${p}/scanned-notes.bin`);
      } else {
        files.push(p);
      }
    }
    return files;
  }

  private async run(files: string[], onProgress: ProgressHandler | undefined, force: boolean): Promise<IngestReport> {
    const began = Date.now();
    this.cancelRequested = false;
    const report: IngestReport = { indexed: [], unchanged: [], failed: [], cancelled: false, chunks: 0, seconds: 0, contexts: [] };
    const provider = this.settings.context_provider;
    const started = Date.now();
    const emit = (file: string, i: number, stage: Stage, done = 0, total = 0, error: BackendError | null = null) => {
      // As the engine does: the time left from the rate so far, once a file is done.
      const elapsed = (Date.now() - started) / 1000;
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
      const existing = this.docs.find((d) => d.row.path === file);
      if (existing && !force) {
        await sleep(this.delayMs);
        emit(file, i, 'unchanged', 1, 1);
        report.unchanged.push(file);
        continue;
      }
      const fail = async (stage: Stage, code: string, message: string) => {
        if (stage !== 'queued') emit(file, i, stage, 0, 1);
        await sleep(this.delayMs);
        emit(file, i, 'failed', 0, 0, { code, message });
        report.failed.push({ path: file, code, message });
        const at = Math.floor(Date.now() / 1000);
        this.failed.set(file, { path: file, mtime: at, size: 0, code, message, at });
      };
      if (!SUPPORTED.has(ext)) {
        await fail('converting', 'unsupported_format', `Unsupported file type${ext ? ` ".${ext}"` : ''}: ${name}`);
        continue;
      }
      if (/corrupt|damaged/i.test(name)) {
        await fail('converting', 'convert_failed', 'The PDF is damaged: its cross-reference table is missing.');
        continue;
      }
      const total = 8;
      const steps: [Stage, number][] = [
        ['converting', 0],
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
        doc = this.addDoc(this.specFor(file, name, ext));
      }
      report.chunks += doc.bodies.length;
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
    const model = provider === 'anthropic' ? this.settings.anthropic_model : this.settings.openai_model;
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
    const docTokens = Math.ceil(d.bodies.join('\n').length / 4) + 60;
    d.bodies.forEach((body, ord) => {
      if (!body.trim()) return;
      const key = `${prefix}:${ord}`;
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

  private specFor(path: string, name: string, ext: string): DocSpec {
    const stem = name.replace(/\.[^.]+$/, '');
    const words = stem.split(/[\s_-]+/).filter(Boolean);
    const first = words[0] ?? 'DOC';
    let label = /^[A-Z0-9]{2,8}$/.test(first) ? first : words.map((w) => w[0]).join('').toUpperCase().slice(0, 6) || 'DOC';
    while (this.docs.some((d) => d.row.label === label)) label += '2';
    const title = /^[A-Z0-9]{2,8}$/.test(first) && words.length > 1 ? words.slice(1).join(' ') : stem;
    const isCobs = /conduct of business/i.test(stem);
    return {
      label,
      title,
      path,
      format: ext === 'htm' || ext === 'xhtml' ? 'html' : ext === 'markdown' ? 'md' : ext,
      pageCount: ext === 'pdf' ? 2 : null,
      sections: isCobs
        ? COBS_SECTIONS
        : [
            {
              number: '1',
              title: 'Overview',
              level: 1,
              parent: null,
              type: 'text',
              pages: ext === 'pdf' ? [1, 2] : undefined,
              body: `${title} was added to the sample library. Its text is simulated by the in-memory backend.`,
            },
          ],
      definitions: [],
    };
  }

  async ingest(paths: string[], onProgress: ProgressHandler): Promise<IngestReport> {
    if (!this.writable) throw this.readOnly();
    this.repaired = this.repaired.filter((p) => !paths.includes(p));
    return this.run(this.expand(paths), onProgress, false);
  }

  async reindexDocument(doc: string, onProgress?: ProgressHandler): Promise<IngestReport> {
    if (!this.writable) throw this.readOnly();
    const d = this.find(doc);
    return this.run([d.row.path], onProgress, true);
  }

  async cancelIngest(): Promise<void> {
    this.cancelRequested = true;
  }

  async removeDocument(doc: string): Promise<void> {
    if (!this.writable) throw this.readOnly();
    const d = this.find(doc);
    this.docs = this.docs.filter((x) => x !== d);
  }

  async pickFiles(): Promise<string[]> {
    return ['/Users/analyst/Downloads/COBS Conduct of Business.pdf', '/Users/analyst/Downloads/corrupt-scan.pdf'];
  }

  async pickFolder(): Promise<string[]> {
    return ['/Users/analyst/Downloads/Rulebooks 2026'];
  }

  onFileDrop(cb: (paths: string[]) => void, onHover?: (over: boolean) => void): () => void {
    if (typeof window === 'undefined') return () => {};
    // A plain browser does not reveal dropped files' paths; their names stand in for them.
    const over = (e: DragEvent) => {
      if (!e.dataTransfer?.types.includes('Files')) return;
      e.preventDefault();
      onHover?.(true);
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) onHover?.(false);
    };
    const drop = (e: DragEvent) => {
      const files = Array.from(e.dataTransfer?.files ?? []);
      if (files.length === 0) return;
      e.preventDefault();
      onHover?.(false);
      cb(files.map((f) => `/Users/analyst/Dropped/${f.name}`));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }

  // --- settings -----------------------------------------------------------------------------

  async getSettings(): Promise<Settings> {
    return structuredCloneSafe(this.settings);
  }

  async saveSettings(s: Settings): Promise<SettingsChange> {
    if (!(s.rrf_k > 0)) throw { code: 'invalid_settings', message: 'RRF k must be a positive number.' };
    for (const [name, w] of Object.entries(s.weights)) {
      if (!(w >= 0)) throw { code: 'invalid_settings', message: `The ${name} weight must be zero or more.` };
    }
    const before = this.settings;
    this.settings = structuredCloneSafe(s);
    let reason: string | null = null;
    if (before.model !== s.model) reason = 'The embedding model changed: every document must be embedded again.';
    else if (before.context_provider !== s.context_provider)
      reason = 'The context provider changed: chunks must be contextualized and embedded again.';
    return { settings: structuredCloneSafe(this.settings), needs_reindex: reason !== null, reason };
  }

  async keyStatus(provider: string): Promise<KeyStatus> {
    const set = this.keys.has(provider);
    return { provider, set, source: set ? 'keychain' : 'none', keychain_available: true, keychain: 'macOS Keychain' };
  }

  async setKey(provider: string, key: string): Promise<KeyStatus> {
    if (!key.trim()) throw { code: 'invalid_key', message: 'The key is empty.' };
    this.keys.set(provider, key);
    return this.keyStatus(provider);
  }

  async removeKey(provider: string): Promise<KeyStatus> {
    this.keys.delete(provider);
    return this.keyStatus(provider);
  }

  // --- original pages -----------------------------------------------------------------------

  async pageImage(doc: string, page: number, chunkId: number | null): Promise<PageImage> {
    const d = this.find(doc);
    if (d.row.format !== 'pdf' || d.row.page_count === null) {
      throw { code: 'not_pdf', message: `${d.row.label} is not a PDF; it has no page images.` };
    }
    if (page < 1 || page > d.row.page_count) {
      throw { code: 'bad_page', message: `Page ${page} is outside 1–${d.row.page_count}.` };
    }
    const key = `${d.row.id}:${page}`;
    const W = 408;
    const H = 528;
    // Lay the sections starting on this page out as grey text lines.
    const layout: { ord: number; y0: number; y1: number }[] = [];
    let y = 40;
    const lines: [number, number, number, number][] = []; // y, height, width, shade
    for (const s of d.sections) {
      if (!s.pages || s.pages.start !== page) continue;
      const y0 = y;
      lines.push([y, 10, Math.min(W - 80, 40 + s.heading.length * 6), 60]);
      y += 22;
      const n = Math.max(1, Math.ceil(d.bodies[s.ord].length / 70));
      for (let i = 0; i < n && y < H - 40; i++) {
        lines.push([y, 6, i === n - 1 ? 120 + ((s.ord * 37) % 150) : W - 80, 170]);
        y += 13;
      }
      layout.push({ ord: s.ord, y0: y0 - 4, y1: y - 3 });
      y += 14;
    }
    let image = this.pages.get(key);
    if (!image) {
      const pixels = new Uint8Array(W * H).fill(255);
      for (const [ly, lh, lw, shade] of lines) {
        for (let r = ly; r < Math.min(H, ly + lh); r++) pixels.fill(shade, r * W + 40, r * W + 40 + Math.min(lw, W - 80));
      }
      // Page number.
      for (let r = H - 24; r < H - 18; r++) pixels.fill(150, r * W + W / 2 - 8, r * W + W / 2 + 8);
      image = { png_base64: encodeGrayPng(W, H, pixels), width: W, height: H, highlights: [] };
      this.pages.set(key, image);
    }
    const highlights: PageImage['highlights'] = [];
    if (chunkId !== null && Math.floor(chunkId / 1000) === d.row.id) {
      const box = layout.find((l) => l.ord === chunkId % 1000);
      if (box) highlights.push({ x: 34, y: box.y0, w: W - 68, h: box.y1 - box.y0 });
    }
    return { ...image, highlights };
  }

  private watchedFolderRows(): WatchedFolder[] {
    return this.watched.map((path) => ({
      path,
      exists: true,
      documents: this.docs.filter((d) => d.row.path.startsWith(`${path}/`)).length,
    }));
  }

  async watchedFolders(): Promise<WatchedFolder[]> {
    return this.watchedFolderRows();
  }

  async watchFolder(path: string): Promise<WatchedFolder[]> {
    if (!this.writable) throw this.readOnly();
    if (!this.watched.includes(path)) {
      this.watched.push(path);
      // Like the engine: the folder's files are added in the background, then announced.
      void this.run(this.expand([path]), undefined, false).then((r) => {
        const report: SyncReport = { indexed: r.indexed, removed: [], failed: r.failed, rescan: true, seconds: r.seconds };
        this.changeListeners.forEach((cb) => cb(report));
      });
    }
    return this.watchedFolderRows();
  }

  async unwatchFolder(path: string): Promise<WatchedFolder[]> {
    if (!this.writable) throw this.readOnly();
    this.watched = this.watched.filter((p) => p !== path);
    return this.watchedFolderRows();
  }

  async about(): Promise<About> {
    const apache = 'Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/';
    return {
      version: '0.1.0',
      components: [
        { name: 'all-MiniLM-L6-v2', role: 'the default embedding model (sentence-transformers)', licence: 'Apache-2.0', text: apache },
        { name: 'potion-base-2M', role: 'the fast embedding model', licence: 'Apache-2.0', text: apache },
        { name: 'PDFium', role: 'reads PDF files', licence: 'BSD-3-Clause', text: null },
      ],
    };
  }

  async missingDocuments(): Promise<MissingDocument[]> {
    const byName = new Map<string, { citations: number; docs: Set<number> }>();
    for (const d of this.docs) {
      for (const s of d.sections) {
        for (const r of this.refsOf(d, s)) {
          if (r.document === null || r.target_doc_id !== null) continue;
          const e = byName.get(r.document) ?? { citations: 0, docs: new Set<number>() };
          e.citations += 1;
          e.docs.add(d.row.id);
          byName.set(r.document, e);
        }
      }
    }
    return [...byName.entries()]
      .map(([name, e]) => ({ name, citations: e.citations, citing_documents: e.docs.size }))
      .sort((a, b) => b.citations - a.citations || a.name.localeCompare(b.name))
      .slice(0, 20);
  }

  async failures(): Promise<FailureRow[]> {
    return [...this.failed.values()].sort((a, b) => a.path.localeCompare(b.path));
  }

  async repairLibrary(onProgress?: ProgressHandler): Promise<RepairReport> {
    if (!this.damaged) throw { code: 'invalid', message: 'the library is open and needs no repair' };
    for (const [i, d] of this.docs.entries()) {
      await sleep(this.delayMs);
      onProgress?.({ file: d.row.path, file_index: i, files: this.docs.length, stage: 'indexing', done: 0, total: 1, error: null, remaining_s: null });
    }
    this.damaged = false;
    const chunks = this.docs.reduce((n, d) => n + d.bodies.filter((b) => b.trim()).length, 0);
    return {
      documents: this.docs.length,
      chunks,
      embedded: 0,
      rolled_back: [],
      catalog: {
        damaged_copy: `${this.settings.library_dir}/catalog.damaged-1796300000.sqlite`,
        from_source: this.docs.length,
        from_records: [],
        salvaged: ['context_cache', 'context_runs', 'watched_folders', 'failures'],
        lost: ['documents'],
      },
    };
  }

  onOpenFiles(cb: (paths: string[]) => void): () => void {
    this.openListeners.add(cb);
    return () => this.openListeners.delete(cb);
  }

  /** Files opened with Folio from outside the window (the desktop's "Open with"). */
  openFiles(paths: string[]): void {
    this.openListeners.forEach((cb) => cb(paths));
  }

  onLibraryChanged(cb: (report: SyncReport) => void): () => void {
    this.changeListeners.add(cb);
    return () => this.changeListeners.delete(cb);
  }

  async copyText(text: string): Promise<void> {
    await writeClipboard(text);
  }
}

function structuredCloneSafe<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
