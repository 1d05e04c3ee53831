// The reader's navigation history: a list of locations and a cursor.

export type Loc = {
  /** Document id (as a string) or label. */
  doc: string;
  /** null: the document's first section. */
  sectionId: string | null;
  /** The search hit that led here, for highlighting the original page. */
  chunkId?: number | null;
  /** The page that hit's passage starts on, where "Open original" opens (else the section's first). */
  page?: number | null;
};

export type History = { entries: Loc[]; index: number };

export const emptyHistory: History = { entries: [], index: -1 };

export function sameLoc(a: Loc | null | undefined, b: Loc | null | undefined): boolean {
  return !!a && !!b && a.doc === b.doc && a.sectionId === b.sectionId;
}

export function current(h: History): Loc | null {
  return h.index >= 0 ? h.entries[h.index] : null;
}

export const canBack = (h: History) => h.index > 0;
export const canForward = (h: History) => h.index < h.entries.length - 1;

export type HistoryAction =
  | { type: 'push'; loc: Loc }
  | { type: 'replace'; loc: Loc }
  | { type: 'back' }
  | { type: 'forward' };

const MAX_ENTRIES = 200;

export function historyReducer(h: History, action: HistoryAction): History {
  switch (action.type) {
    case 'push': {
      const cur = current(h);
      if (sameLoc(cur, action.loc)) {
        // Same place: keep the entry but refresh what led here.
        if (cur!.chunkId === action.loc.chunkId) return h;
        return historyReducer(h, { type: 'replace', loc: action.loc });
      }
      const entries = [...h.entries.slice(0, h.index + 1), action.loc].slice(-MAX_ENTRIES);
      return { entries, index: entries.length - 1 };
    }
    case 'replace': {
      if (h.index < 0) return { entries: [action.loc], index: 0 };
      const entries = h.entries.slice();
      entries[h.index] = action.loc;
      return { entries, index: h.index };
    }
    case 'back':
      return canBack(h) ? { ...h, index: h.index - 1 } : h;
    case 'forward':
      return canForward(h) ? { ...h, index: h.index + 1 } : h;
  }
}
