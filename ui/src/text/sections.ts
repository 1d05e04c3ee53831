/** A readable form of a section id: "sec_2_1_3" → "2.1.3"; other ids unchanged. */
export function sectionLabel(sectionId: string): string {
  const m = /^sec_(\d+(?:_\d+)*)$/.exec(sectionId);
  return m ? m[1].replace(/_/g, '.') : sectionId;
}
