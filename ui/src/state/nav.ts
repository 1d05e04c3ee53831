import { createContext, useContext } from 'react';
import type { Loc } from './history';

export type View = 'library' | 'search' | 'reader' | 'definitions' | 'settings';

export type Nav = {
  view: View;
  setView(view: View): void;
  /** Opens a location in the reader, adding it to the reader's history. */
  open(loc: Loc): void;
  /** Replaces the reader's current location (no new history entry). */
  replace(loc: Loc): void;
  /** Bumped whenever the library changes (ingest, remove). */
  libraryVersion: number;
  libraryChanged(): void;
};

export const NavContext = createContext<Nav | null>(null);

export function useNav(): Nav {
  const nav = useContext(NavContext);
  if (!nav) throw new Error('useNav outside <NavContext.Provider>');
  return nav;
}
