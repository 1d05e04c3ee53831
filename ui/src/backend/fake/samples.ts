// The sample library's documents: a rulebook (GEN), a glossary (GLO) and what a file added to it
// becomes (COBS, or a one-section stand-in), built into the rows the engine would return.
import type { ChunkType, DefinitionHit, DocumentRow, SectionRow, TableMark } from '../types';

/**
 * Tables in a sample body: each run of lines with tab-separated cells, its first `headerRows`
 * rows heading the columns (the engine stores what the converter found instead).
 */
export function tableMarks(body: string, headerRows: number): TableMark[] {
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


export type SectionSpec = {
  number: string | null;
  title: string;
  level: number;
  /** Index of the parent in the same list. */
  parent: number | null;
  body: string;
  type: ChunkType;
  pages?: [number, number];
};

type DefinitionSpec = { term: string; section: number; scope: number | null };

export type DocSpec = {
  label: string;
  title: string;
  path: string;
  format: string;
  pageCount: number | null;
  sections: SectionSpec[];
  definitions: DefinitionSpec[];
};

export type FakeDoc = {
  row: DocumentRow;
  sections: SectionRow[];
  bodies: string[];
  /** Offset of each body in the document text. */
  bodyStarts: number[];
  types: ChunkType[];
  definitions: DefinitionHit[];
};

export const GEN: DocSpec = {
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
      type: 'content',
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
      type: 'content',
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
      type: 'content',
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

export const GLO: DocSpec = {
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
      type: 'content',
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
export const COBS_SECTIONS: SectionSpec[] = [
  {
    number: '6',
    title: 'Record keeping',
    level: 1,
    parent: null,
    type: 'content',
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

export function buildDoc(id: number, spec: DocSpec, mtime: number): FakeDoc {
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

/**
 * What a file added to the sample library becomes: the COBS rulebook for a file named "… Conduct of
 * Business …", otherwise one overview section. The label is the file's leading code ("GEN …") or
 * its initials, made unique against `taken`.
 */
export function sampleSpecFor(path: string, name: string, ext: string, taken: (label: string) => boolean): DocSpec {
  const stem = name.replace(/\.[^.]+$/, '');
  const words = stem.split(/[\s_-]+/).filter(Boolean);
  const first = words[0] ?? 'DOC';
  let label = /^[A-Z0-9]{2,8}$/.test(first) ? first : words.map((w) => w[0]).join('').toUpperCase().slice(0, 6) || 'DOC';
  while (taken(label)) label += '2';
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
            type: 'content',
            pages: ext === 'pdf' ? [1, 2] : undefined,
            body: `${title} was added to the sample library. Its text is simulated by the in-memory backend.`,
          },
        ],
    definitions: [],
  };
}
