import type { BackendError } from './types';

function isBackendError(value: unknown): value is BackendError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** Normalises anything thrown or rejected into a `{code, message}` object. */
export function toBackendError(value: unknown): BackendError {
  if (isBackendError(value)) return { code: value.code, message: value.message };
  if (value instanceof Error) return { code: value.name || 'error', message: value.message || String(value) };
  if (typeof value === 'string') {
    // A serialized error object is sometimes delivered as a JSON string.
    try {
      const parsed: unknown = JSON.parse(value);
      if (isBackendError(parsed)) return { code: parsed.code, message: parsed.message };
    } catch {
      /* not JSON */
    }
    return { code: 'error', message: value };
  }
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string') {
      const code = (value as { code?: unknown }).code;
      return { code: typeof code === 'string' ? code : 'error', message };
    }
    try {
      return { code: 'error', message: JSON.stringify(value) };
    } catch {
      /* circular */
    }
  }
  return { code: 'error', message: value === undefined ? 'Unknown error' : String(value) };
}

/** The text to show for an error. */
export function errorMessage(value: unknown): string {
  return toBackendError(value).message;
}
