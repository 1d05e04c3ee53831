import type { BackendError, ErrorCode } from './types';

/**
 * What the user can do about each error, by code (`null` where the message says it all). The
 * record is exhaustive over the engine's `ErrorCode` union (generated from Rust): a code renamed,
 * added or removed in the engine is a type error here.
 */
const ADVICE: Record<ErrorCode, string | null> = {
  not_found: null,
  invalid: null,
  read_only: 'Close the other Folio window that has this library open; for a team library, ask its administrator for a role that may add documents.',
  damaged: null,
  storage: 'Copy the diagnostics (Settings › About Folio) into a bug report: they hold the log.',
  embedding: 'Check the model files, and for LLM contexts the provider, its address and key in Settings.',
  cancelled: null,
  internal: 'This is a fault in Folio; restarting it may help.',
  empty: null,
  corrupt: 'Open the file in its own application and save a fresh copy, then add that.',
  encrypted: 'Save a copy without the password, then add that.',
  unsupported: 'Folio reads PDF, Word (.docx), HTML, EPUB, Markdown and plain-text files.',
  wrong_extension: 'Rename the file with the extension of its real type.',
  too_large: 'Split the file into smaller parts.',
  too_many_pages: 'Split the document into smaller parts.',
  zip_bomb: null,
  pdf_engine_missing: 'Reinstall Folio: its PDF engine is missing.',
  io: 'Check that the file still exists and that you may read it.',
  timed_out: 'Add the file again on its own; if it keeps timing out, split it.',
  out_of_memory: 'Split the document into smaller parts.',
  crashed: 'Open the file in its own application and save a fresh copy, then add that.',
  refused: 'Check that you may read and write the library folder, and that its disk has free space.',
  unreachable: 'Check the network and that the team library\'s server is running; Folio connects again by itself.',
  login_refused: 'Check the user and password of the team library in Settings › Library.',
  unprepared: 'Ask the team library\'s administrator to prepare the database (see Folio\'s README: CREATE EXTENSION vector).',
};

/** Whether `value` is one of the engine's error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ADVICE, value);
}

/** What the user can do about an error with this code, if there is more to say than its message. */
export function errorAdvice(code: ErrorCode): string | null {
  return ADVICE[code];
}

/** A `{code, message}` error. */
export function backendError(code: ErrorCode, message: string): BackendError {
  return { code, message };
}

function isBackendError(value: unknown): value is BackendError {
  return (
    typeof value === 'object' &&
    value !== null &&
    isErrorCode((value as { code?: unknown }).code) &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/**
 * Normalises anything thrown or rejected into a `{code, message}` object. What does not come from
 * the engine (a JavaScript exception, a bare string) is `internal`.
 */
export function toBackendError(value: unknown): BackendError {
  if (isBackendError(value)) return { code: value.code, message: value.message };
  if (value instanceof Error) return { code: 'internal', message: value.message || value.name || String(value) };
  if (typeof value === 'string') {
    // A serialized error object is sometimes delivered as a JSON string.
    try {
      const parsed: unknown = JSON.parse(value);
      if (isBackendError(parsed)) return { code: parsed.code, message: parsed.message };
    } catch {
      /* not JSON */
    }
    return { code: 'internal', message: value };
  }
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string') {
      const code = (value as { code?: unknown }).code;
      return { code: isErrorCode(code) ? code : 'internal', message };
    }
    try {
      return { code: 'internal', message: JSON.stringify(value) };
    } catch {
      /* circular */
    }
  }
  return { code: 'internal', message: value === undefined ? 'Unknown error' : String(value) };
}

/** The text to show for an error. */
export function errorMessage(value: unknown): string {
  return toBackendError(value).message;
}
