// The sample library's documents in memory, and what every answer about them needs: finding a
// document or section, its ancestors, the references written in a section and the defined terms
// it uses.
import type { BackendError, Crumb, DefinitionHit, RefRow, SectionRow, TermMark } from '../types';
import { backendError } from '../errors';
import { buildDoc, type DocSpec, type FakeDoc } from './samples';
import { escapeRegExp } from './text';

export function notFound(message: string): BackendError {
  return backendError('not_found', message);
}

export class SampleLibrary {
  docs: FakeDoc[] = [];
  private nextId = 1;

  add(spec: DocSpec): FakeDoc {
    const doc = buildDoc(this.nextId++, spec, 1_760_000_000 + this.nextId * 3600);
    this.docs.push(doc);
    return doc;
  }

  remove(doc: FakeDoc): void {
    this.docs = this.docs.filter((x) => x !== doc);
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

  /** The references written in a section's body, resolved against the current library. */
  refsOf(d: FakeDoc, s: SectionRow): RefRow[] {
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

  allDefinitions(): DefinitionHit[] {
    return this.docs.flatMap((d) => d.definitions);
  }

  /** Where a section uses defined terms that apply to it (a scoped term only inside its scope). */
  termMarks(d: FakeDoc, s: SectionRow): TermMark[] {
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
}
