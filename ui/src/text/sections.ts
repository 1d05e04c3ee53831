import type { SectionRow } from '../backend/types';

/**
 * What a section is called where it is shown: its heading as printed ("2.1.3 Principle 3 – …"), else
 * its printed number or title. Never its id (`sec_2_1_3`, `s_11_14_1`): ids are the engine's keys,
 * kept in data attributes and links, and mean nothing to a reader.
 */
export function sectionName(s: Pick<SectionRow, 'heading' | 'number' | 'title'>): string {
  return s.heading.trim() || s.number?.trim() || s.title.trim() || 'Untitled section';
}
