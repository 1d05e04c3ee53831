// The sample library's diagnostics report: the same fields as the engine's, with its plain-text
// form for pasting into a bug report written out here (the engine writes its own).
import type { Diagnostics } from '../types';
import { formatBytes } from '../../text/format';

/** Where the sample says Folio's log is (nothing is written there). */
export const SAMPLE_LOG_DIR = '/Users/analyst/Library/Logs/Folio';

/** The report, with `text` made from the other fields. */
export function diagnosticsReport(fields: Omit<Diagnostics, 'text'>): Diagnostics {
  const lines = [
    `Folio ${fields.version}`,
    `OS: ${fields.os}`,
    `Embedding kernel: ${fields.kernel}`,
    `Library: ${fields.library}`,
    `  ${fields.documents} documents, ${fields.chunks} chunks, ${formatBytes(fields.library_bytes)}`,
    `Log folder: ${fields.log_dir}`,
    fields.recent_errors.length > 0 ? 'Recent errors:' : 'Recent errors: none',
    ...fields.recent_errors.map((e) => `  ${e}`),
  ];
  return { ...fields, text: `${lines.join('\n')}\n` };
}
