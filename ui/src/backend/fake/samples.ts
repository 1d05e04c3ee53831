// The sample library's documents: what `folio parse --json --text` makes of the files in
// `tests/fixtures/samples` (a rulebook PDF, GEN; a glossary, GLO; and COBS, which is what a file
// named "COBS …" or "… Conduct of Business …" becomes when added). `samples.json` is written by
// the CLI's test `ui_samples` (FOLIO_BLESS=1 rewrites it), so these are the engine's own outline,
// chunks, definitions, references and tables, not copies of its logic. A file added that is not a
// sample becomes one overview section.
import type { ChunkType, DefinitionHit, DocumentRow, PageRange, SectionRow, Span, TableMark } from '../types';
import samples from './samples.json';

/** One line of `folio parse --json --text` (schema 1; the fields the sample library reads). */
export type ParsedDocument = {
  schema_version: number;
  document: { title: string; format: string; page_count: number | null; content_hash: string; source_path: string | null; text?: string };
  outline: {
    id: string;
    number: string | null;
    title: string;
    heading: string;
    level: number;
    parent_id: string | null;
    pages: PageRange | null;
    span: Span;
  }[];
  chunks: { chunk_index: number; text: string; section_id: string; section_ids: string[]; parent_chain: string[]; chunk_type: string; pages: PageRange | null; span: Span }[];
  definitions: { term: string; key: string; text: string; section_id: string; scope: { kind: string; section_id?: string }; span: Span }[];
  references: { text: string; label: string; span: Span; from_section: string; target_section: string | null; document: string | null; container: string | null }[];
  tables: { span: Span; section_id: string; header_rows: string[][]; rows: string[][] }[];
};

/** A chunk as the fake search sees it: spans in UTF-16 code units of the document's text. */
export type FakeChunk = {
  index: number;
  text: string;
  section_id: string;
  section_ids: string[];
  parent_chain: string[];
  type: ChunkType;
  pages: PageRange | null;
  span: Span;
};

/** A reference written in the document (spans in UTF-16 code units of its text). */
export type FakeReference = {
  text: string;
  label: string;
  span: Span;
  from_section: string;
  target_section: string | null;
  document: string | null;
  container: string | null;
};

export type FakeDoc = {
  row: DocumentRow;
  /** The title its file gives (what a rename reset gives back). */
  fileTitle: string;
  /** The extracted text; every span below is a range of it in UTF-16 code units. */
  text: string;
  sections: SectionRow[];
  chunks: FakeChunk[];
  definitions: DefinitionHit[];
  references: FakeReference[];
  tables: TableMark[];
};

/** A sample to add: the parse output, where the library shows it, and its label. */
export type SampleSpec = { parsed: ParsedDocument; path: string; label: string };

const PARSED = (samples as unknown as { documents: ParsedDocument[] }).documents;
const FOLDER = '/Users/analyst/Rulebooks';

function fileName(path: string | null): string {
  return (path ?? '').split('/').pop() ?? '';
}

function sample(label: string): ParsedDocument {
  const found = PARSED.find((d) => fileName(d.document.source_path).startsWith(`${label} `));
  if (!found) throw new Error(`samples.json has no document "${label} …"`);
  return found;
}

/** The sample documents the library starts with. */
export const GEN: SampleSpec = { parsed: sample('GEN'), path: `${FOLDER}/${fileName(sample('GEN').document.source_path)}`, label: 'GEN' };
export const GLO: SampleSpec = { parsed: sample('GLO'), path: `${FOLDER}/${fileName(sample('GLO').document.source_path)}`, label: 'GLO' };

/** Maps byte offsets of `text`'s UTF-8 encoding to offsets in its UTF-16 code units. */
export function utf16Offsets(text: string): (byte: number) => number {
  const at = new Map<number, number>();
  let bytes = 0;
  let units = 0;
  for (const c of text) {
    at.set(bytes, units);
    const cp = c.codePointAt(0)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    units += c.length;
  }
  at.set(bytes, units);
  return (byte) => {
    const u = at.get(byte);
    if (u === undefined) throw new Error(`byte offset ${byte} is not at a character boundary`);
    return u;
  };
}

function hashOf(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').repeat(8);
}

/** The rows the engine would store for a parsed document, as document `id`. */
export function buildDoc(id: number, spec: SampleSpec, mtime: number): FakeDoc {
  const p = spec.parsed;
  const text = p.document.text ?? '';
  const u = utf16Offsets(text);
  const span = (s: Span): Span => ({ start: u(s.start), end: u(s.end) });
  const ordOf = new Map(p.outline.map((s, ord) => [s.id, ord]));
  const sections: SectionRow[] = p.outline.map((s, ord) => ({
    doc_id: id,
    ord,
    section_id: s.id,
    number: s.number,
    title: s.title,
    heading: s.heading,
    level: s.level,
    parent_ord: s.parent_id === null ? null : (ordOf.get(s.parent_id) ?? null),
    pages: s.pages,
    span: span(s.span),
  }));
  const chunks: FakeChunk[] = p.chunks.map((c) => ({
    index: c.chunk_index,
    text: c.text,
    section_id: c.section_id,
    section_ids: c.section_ids,
    parent_chain: c.parent_chain,
    type: c.chunk_type as ChunkType,
    pages: c.pages,
    span: span(c.span),
  }));
  const definitions: DefinitionHit[] = p.definitions.map((d) => ({
    document: spec.label,
    doc_id: id,
    term: d.term,
    key: d.key,
    text: d.text,
    section_id: d.section_id,
    scope_section: d.scope.kind === 'section' ? (d.scope.section_id ?? null) : null,
    span: span(d.span),
  }));
  const references: FakeReference[] = p.references.map((r) => ({ ...r, span: span(r.span) }));
  const tables: TableMark[] = p.tables.map((t) => ({ ...span(t.span), header_rows: t.header_rows.length }));
  return {
    row: {
      id,
      path: spec.path,
      label: spec.label,
      title: p.document.title,
      format: p.document.format,
      content_hash: p.document.content_hash || hashOf(text),
      mtime,
      size: text.length * 7 + 2048,
      page_count: p.document.page_count,
      status: 'indexed',
      renamed: false,
    },
    fileTitle: p.document.title,
    text,
    sections,
    chunks,
    definitions,
    references,
    tables,
  };
}

/** A one-section stand-in for a file added that is not one of the samples. */
function overview(title: string, format: string, paged: boolean): ParsedDocument {
  const heading = '1 Overview';
  const body = `${title} was added to the sample library. Its text is simulated by the in-memory backend.`;
  const text = `${heading}\n${body}`;
  const bytes = new TextEncoder().encode(text).length;
  const pages = paged ? { start: 1, end: 1 } : null;
  return {
    schema_version: 1,
    document: { title, format, page_count: paged ? 1 : null, content_hash: hashOf(text), source_path: null, text },
    outline: [{ id: 'sec_1', number: '1', title: 'Overview', heading, level: 1, parent_id: null, pages, span: { start: 0, end: bytes } }],
    chunks: [
      { chunk_index: 0, text: body, section_id: 'sec_1', section_ids: ['sec_1'], parent_chain: [title, heading], chunk_type: 'content', pages, span: { start: heading.length + 1, end: bytes } },
    ],
    definitions: [],
    references: [],
    tables: [],
  };
}

/**
 * What a file added to the sample library becomes: COBS for a file named "COBS …" or "… Conduct
 * of Business …", otherwise one overview section. The label is the file's leading code ("GEN …")
 * or its initials, made unique against `taken`.
 */
export function sampleSpecFor(path: string, name: string, ext: string, taken: (label: string) => boolean): SampleSpec {
  const stem = name.replace(/\.[^.]+$/, '');
  const words = stem.split(/[\s_-]+/).filter(Boolean);
  const first = words[0] ?? 'DOC';
  let label = /^[A-Z0-9]{2,8}$/.test(first) ? first : words.map((w) => w[0]).join('').toUpperCase().slice(0, 6) || 'DOC';
  while (taken(label)) label += '2';
  const title = /^[A-Z0-9]{2,8}$/.test(first) && words.length > 1 ? words.slice(1).join(' ') : stem;
  if (first === 'COBS' || /conduct of business/i.test(stem)) return { parsed: sample('COBS'), path, label };
  const format = ext === 'htm' || ext === 'xhtml' ? 'html' : ext === 'md' ? 'markdown' : ext;
  return { parsed: overview(title, format, ext === 'pdf'), path, label };
}
