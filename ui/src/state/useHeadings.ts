import { useCallback, useEffect, useRef, useState } from 'react';
import type { Backend } from '../backend';
import { sectionName } from '../text/sections';

/**
 * Section headings of other documents, fetched through `outline` on demand, so references and
 * definitions can name a section ("2.1 Principles…"). `heading` is null while the document's
 * outline is being read, or when the section is not in it: callers then leave the section's name
 * out, never showing its id.
 */
export function useHeadings(backend: Backend, version: unknown) {
  const [maps, setMaps] = useState<Map<number, Map<string, string>>>(() => new Map());
  const requested = useRef(new Set<number>());

  useEffect(() => {
    requested.current.clear();
    setMaps(new Map());
  }, [backend, version]);

  const request = useCallback(
    (docIds: number[]) => {
      for (const id of new Set(docIds)) {
        if (requested.current.has(id)) continue;
        requested.current.add(id);
        backend.outline(String(id)).then(
          (o) =>
            setMaps((prev) => {
              const next = new Map(prev);
              next.set(id, new Map(o.sections.map((s) => [s.section_id, sectionName(s)])));
              return next;
            }),
          () => {
            /* the section's name stays out */
          },
        );
      }
    },
    [backend],
  );

  const heading = useCallback((docId: number, sectionId: string): string | null => maps.get(docId)?.get(sectionId) ?? null, [maps]);

  return { heading, request };
}

export type Headings = ReturnType<typeof useHeadings>;
