import { describe, expect, it } from 'vitest';
import { canBack, canForward, current, emptyHistory, historyReducer, type History, type Loc } from './history';

const a: Loc = { doc: '1', sectionId: 'sec_1' };
const b: Loc = { doc: '1', sectionId: 'sec_2' };
const c: Loc = { doc: '2', sectionId: 'sec_x' };

function run(...actions: Parameters<typeof historyReducer>[1][]): History {
  return actions.reduce(historyReducer, emptyHistory);
}

describe('reader history', () => {
  it('starts empty', () => {
    expect(current(emptyHistory)).toBeNull();
    expect(canBack(emptyHistory)).toBe(false);
    expect(canForward(emptyHistory)).toBe(false);
  });

  it('goes back and forward over pushed locations', () => {
    let h = run({ type: 'push', loc: a }, { type: 'push', loc: b }, { type: 'push', loc: c });
    expect(current(h)).toEqual(c);
    h = historyReducer(h, { type: 'back' });
    expect(current(h)).toEqual(b);
    h = historyReducer(h, { type: 'back' });
    expect(current(h)).toEqual(a);
    expect(canBack(h)).toBe(false);
    expect(historyReducer(h, { type: 'back' })).toBe(h);
    h = historyReducer(h, { type: 'forward' });
    expect(current(h)).toEqual(b);
    expect(canForward(h)).toBe(true);
  });

  it('drops the forward entries when a new location is pushed after going back', () => {
    let h = run({ type: 'push', loc: a }, { type: 'push', loc: b }, { type: 'back' }, { type: 'push', loc: c });
    expect(h.entries).toEqual([a, c]);
    expect(canForward(h)).toBe(false);
    h = historyReducer(h, { type: 'back' });
    expect(current(h)).toEqual(a);
  });

  it('does not add an entry for the current location again', () => {
    const h = run({ type: 'push', loc: a }, { type: 'push', loc: { ...a } });
    expect(h.entries).toHaveLength(1);
  });

  it('replace changes the current entry only', () => {
    const h = run({ type: 'push', loc: a }, { type: 'push', loc: { doc: '2', sectionId: null } }, { type: 'replace', loc: c });
    expect(h.entries).toEqual([a, c]);
    expect(h.index).toBe(1);
  });
});
