// The sample library's documents in memory, and what every answer about them needs: finding a
// document or section, its ancestors, the references written in a section and the defined terms
// it uses.
import type { BackendError, Crumb, DefinitionHit, RefRow, SectionRow, TermMark } from '../types';
import { backendError } from '../errors';
import { buildDoc, type FakeChunk, type FakeDoc, type FakeReference, type SampleSpec } from './samples';
import { escapeRegExp } from './text';

/** The section a reference's label names ("Rule 6.1.1" → 6.1.1), by its printed number. */
function sectionNamed(d: FakeDoc, label: string): SectionRow | undefined {
  const number = label.match(/\d+(?:\.\d+)*/g)?.pop();
  return number === undefined ? undefined : d.sections.find((x) => x.number?.replace(/\.$/, '') === number);
}

export function notFound(message: string): BackendError {
  return backendError('not_found', message);
}

export class SampleLibrary {
  docs: FakeDoc[] = [];
  private nextId = 1;

  add(spec: SampleSpec): FakeDoc {
    const doc = buildDoc(this.nextId++, spec, 1_760_000_000 + this.nextId * 3600);
    this.docs.push(doc);
    return doc;
  }

  remove(doc: FakeDoc): void {
    this.docs = this.docs.filter((x) => x !== doc);
  }

  /**
   * Names a document as the user wants it cited; `null` or a blank title gives it back the title
   * its file gives (as the engine does, the rename survives re-indexing: the row keeps it).
   */
  rename(d: FakeDoc, title: string | null): void {
    const wanted = title?.trim() ?? '';
    d.row.title = wanted || d.fileTitle;
    d.row.renamed = wanted !== '';
  }

  /** `doc` is a document id (as a string) or label. */
  find(doc: string): FakeDoc {
    const wanted = doc.trim();
    const found = this.docs.find((d) => String(d.row.id) === wanted || d.row.label.toLowerCase() === wanted.toLowerCase());
    if (!found) throw notFound(`No document "${doc}" in the library.`);
    return found;
  }

  findSection(d: FakeDoc, id: string): SectionRow {
    const s =
      d.sections.find((x) => x.section_id === id) ??
      d.sections.find((x) => x.number !== null && x.number === id.replace(/^(?:sec_)/, '').replace(/_/g, '.'));
    if (!s) throw notFound(`No section "${id}" in ${d.row.label}.`);
    return s;
  }

  /**
   * The section a chunk is shown under: its innermost section, or (for a chunk the engine files
   * under the document itself, "doc") the first section whose text it holds.
   */
  sectionOfChunk(d: FakeDoc, c: FakeChunk): SectionRow {
    const byId = (id: string) => d.sections.find((x) => x.section_id === id);
    return byId(c.section_id) ?? c.section_ids.map(byId).find((x) => x !== undefined) ?? d.sections[0];
  }

  ancestors(d: FakeDoc, s: SectionRow): SectionRow[] {
    const chain: SectionRow[] = [];
    let cur: SectionRow | undefined = s;
    while (cur) {
      chain.unshift(cur);
      cur = cur.parent_ord === null ? undefined : d.sections[cur.parent_ord];
    }
    return chain;
  }

  crumbs(d: FakeDoc, s: SectionRow): Crumb[] {
    return this.ancestors(d, s).map((x) => ({ section_id: x.section_id, heading: x.heading }));
  }

  within(d: FakeDoc, s: SectionRow, ancestorId: string): boolean {
    return this.ancestors(d, s).some((x) => x.section_id === ancestorId);
  }

  /** A reference resolved against the current library, as the engine stores it. */
  resolve(d: FakeDoc, r: FakeReference): RefRow {
    const row: RefRow = { ...r, span: { ...r.span }, doc_id: d.row.id, target_doc_id: null, target_doc_section: null };
    if (r.document !== null && r.target_section === null) {
      const other = this.docs.find((x) => x.row.label === r.document);
      const target = other && sectionNamed(other, r.label);
      if (other && target) {
        row.target_doc_id = other.row.id;
        row.target_doc_section = target.section_id;
      }
    }
    return row;
  }

  /** The references a section makes (written in its own text). */
  refsFrom(d: FakeDoc, s: SectionRow): RefRow[] {
    return d.references.filter((r) => r.from_section === s.section_id).map((r) => this.resolve(d, r));
  }

  /** The references written anywhere in a section's text, its subsections' included. */
  refsWithin(d: FakeDoc, s: SectionRow): RefRow[] {
    return d.references.filter((r) => s.span.start <= r.span.start && r.span.end <= s.span.end).map((r) => this.resolve(d, r));
  }

  allDefinitions(): DefinitionHit[] {
    return this.docs.flatMap((d) => d.definitions);
  }

  /** Where a section uses defined terms that apply to it (a scoped term only inside its scope). */
  termMarks(d: FakeDoc, s: SectionRow): TermMark[] {
    const body = d.text.slice(s.span.start, s.span.end);
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
        marks.push({ start, end, term: def.term, key: def.key, definition_doc_id: def.doc_id, definition_section_id: def.section_id });
      }
    }
    return marks.sort((a, b) => a.start - b.start);
  }
}
