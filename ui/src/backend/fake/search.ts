// The sample library's answers: search (a case-insensitive term match over its chunks, exact
// section numbers first), outline, show, references and definitions, computed from its documents.
import type {
  Backlinks,
  DefinitionHit,
  DocumentSummary,
  EmbeddingModel,
  Hit,
  LinkMark,
  MissingDocument,
  Outline,
  RefRow,
  SearchRequest,
  SectionRow,
  SectionView,
  Timings,
} from '../types';
import { formatPages } from '../../text/format';
import type { SampleLibrary } from './library';
import type { FakeChunk, FakeDoc } from './samples';
import { countOccurrences, markSnippet, queryTerms } from './text';

export function summaries(lib: SampleLibrary): DocumentSummary[] {
  return lib.docs.map((d) => ({
    document: { ...d.row },
    stats: {
      sections: d.sections.length,
      chunks: d.chunks.length,
      definitions: d.definitions.length,
      references: d.references.length,
    },
    error: null,
  }));
}

export function search(lib: SampleLibrary, req: SearchRequest, model: EmbeddingModel): Hit[] {
  const terms = queryTerms(req.query);
  if (terms.length === 0) return [];
  const docs = req.documents.length ? req.documents.map((x) => lib.find(x)) : lib.docs;
  const scope = req.section ? { doc: lib.find(req.section.doc), id: req.section.section_id } : null;
  type Scored = { d: FakeDoc; c: FakeChunk; s: SectionRow; score: number; exact: boolean };
  const scored: Scored[] = [];
  for (const d of docs) {
    for (const c of d.chunks) {
      if (req.chunk_types.length && !req.chunk_types.includes(c.type)) continue;
      const s = lib.sectionOfChunk(d, c);
      const own = d.sections.filter((x) => c.section_ids.includes(x.section_id));
      if (scope && (scope.doc !== d || ![s, ...own].some((x) => lib.within(d, x, scope.id)))) continue;
      const content = c.text.toLowerCase();
      const headings = own.map((x) => x.heading.toLowerCase()).join('\n');
      let score = 0;
      let exact = false;
      for (const t of terms) {
        score += countOccurrences(content, t) + 2 * countOccurrences(headings, t);
        if (own.some((x) => x.number !== null && t === x.number.toLowerCase().replace(/\.$/, ''))) exact = true;
      }
      if (score > 0 || exact) scored.push({ d, c, s, score: score + (exact ? 10 : 0), exact });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.d.row.id - b.d.row.id || a.c.index - b.c.index);
  const limit = req.limit > 0 ? req.limit : 10;
  const exactOrder = scored.filter((x) => x.exact);
  const timings_ms = timings(lib, model, terms.length, scored.length);
  return scored.slice(0, limit).map(({ d, c, s, score, exact }, i): Hit => {
    const crumbs = lib.crumbs(d, s);
    const pages = c.pages;
    return {
      chunk_id: d.row.id * 1000 + c.index,
      score: Math.round((score / (scored[0].score || 1)) * 1000) / 1000,
      doc_id: d.row.id,
      document: d.row.title,
      label: d.row.label,
      path: d.row.path,
      section_id: c.section_id,
      section_ids: [...c.section_ids],
      section_number: s.number,
      parent_chain: [...c.parent_chain],
      crumbs,
      chunk_type: c.type,
      pages,
      span: { ...c.span },
      content: c.text,
      contextualized: `${c.parent_chain.join(' › ')}\n\n${c.text}`,
      snippet: markSnippet(c.text, terms),
      dense: i < 5 ? { rank: i + 1, score: Math.round((0.82 - i * 0.07) * 1000) / 1000 } : null,
      keyword: score > (exact ? 10 : 0) ? { rank: i + 1, score: Math.round(score * 1.7 * 100) / 100 } : null,
      exact: exact ? { rank: exactOrder.findIndex((x) => x.c === c && x.d === d) + 1, score: 1 } : null,
      citation: `${d.row.label} ${s.number ?? s.title} (${d.row.title}${pages ? `, ${formatPages(pages)}` : ''})`,
      timings_ms: { ...timings_ms },
    };
  });
}

/**
 * Plausible per-channel times of one search (the same on each of its hits, as the engine reports
 * them): embedding the query dominates with the MiniLM model; deterministic for tests.
 */
function timings(lib: SampleLibrary, model: EmbeddingModel, terms: number, candidates: number): Timings {
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const chunks = lib.docs.reduce((n, d) => n + d.chunks.length, 0);
  const embed = round(model === 'fast' ? 0.35 + 0.02 * terms : 5.8 + 0.4 * terms);
  const dense = round(0.6 + 0.01 * chunks);
  const keyword = round(0.3 + 0.05 * terms + 0.01 * candidates);
  const exact = round(0.08 + 0.01 * terms);
  return { embed, dense, keyword, exact, total: round(embed + dense + keyword + exact + 0.25) };
}

export function outline(lib: SampleLibrary, doc: string): Outline {
  const d = lib.find(doc);
  return { document: { ...d.row }, sections: d.sections.map((s) => ({ ...s })) };
}

export function show(lib: SampleLibrary, doc: string, sectionId: string): SectionView {
  const d = lib.find(doc);
  const s = lib.findSection(d, sectionId);
  const base = s.span.start;
  const within = (x: { start: number; end: number }) => s.span.start <= x.start && x.end <= s.span.end;
  const links: LinkMark[] = lib.refsWithin(d, s).map((r) => ({
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
    crumbs: lib.crumbs(d, s),
    text: d.text.slice(s.span.start, s.span.end),
    terms: lib.termMarks(d, s),
    links,
    tables: d.tables.filter(within).map((t) => ({ start: t.start - base, end: t.end - base, header_rows: t.header_rows })),
    pages: s.pages,
    path: d.row.path,
    format: d.row.format,
  };
}

export function references(lib: SampleLibrary, doc: string, sectionId: string): Backlinks {
  const d = lib.find(doc);
  const s = lib.findSection(d, sectionId);
  // As the engine: everything the Reader shows with the section refers from it (its subsections
  // too), each reference saying which part it is written in (`from_section`).
  const outgoing = lib.refsWithin(d, s);
  const incoming: RefRow[] = [];
  for (const other of lib.docs) {
    for (const from of other.sections) {
      for (const r of lib.refsFrom(other, from)) {
        const same = other === d && r.target_section === s.section_id;
        const cross = r.target_doc_id === d.row.id && r.target_doc_section === s.section_id;
        if (same || cross) incoming.push(r);
      }
    }
  }
  return { outgoing, incoming };
}

export function define(lib: SampleLibrary, term: string): DefinitionHit[] {
  // The engine's term keys: lower case, words joined by "_" ("authorised_person").
  const key = term
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_|_$/g, '');
  const keys = new Set([key, key.replace(/s$/, ''), key.replace(/ies$/, 'y')]);
  return lib
    .allDefinitions()
    .filter((d) => keys.has(d.key))
    .map((d) => ({ ...d }));
}

export function definitions(lib: SampleLibrary): DefinitionHit[] {
  return lib
    .allDefinitions()
    .map((d) => ({ ...d }))
    .sort((a, b) => a.term.localeCompare(b.term));
}

/** The documents the library cites most but does not hold, most cited first. */
export function missingDocuments(lib: SampleLibrary): MissingDocument[] {
  const byName = new Map<string, { citations: number; docs: Set<number> }>();
  for (const d of lib.docs) {
    for (const r of d.references.map((x) => lib.resolve(d, x))) {
      if (r.document === null || r.target_doc_id !== null) continue;
      const e = byName.get(r.document) ?? { citations: 0, docs: new Set<number>() };
      e.citations += 1;
      e.docs.add(d.row.id);
      byName.set(r.document, e);
    }
  }
  return [...byName.entries()]
    .map(([name, e]) => ({ name, citations: e.citations, citing_documents: e.docs.size }))
    .sort((a, b) => b.citations - a.citations || a.name.localeCompare(b.name))
    .slice(0, 20);
}
