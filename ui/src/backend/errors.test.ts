import { describe, expect, it } from 'vitest';
import { errorMessage, toBackendError } from './errors';

describe('toBackendError', () => {
  it('keeps {code, message} objects', () => {
    expect(toBackendError({ code: 'not_found', message: 'No such document', extra: 1 })).toEqual({ code: 'not_found', message: 'No such document' });
  });

  it('normalises strings, Errors and other objects', () => {
    expect(toBackendError('boom')).toEqual({ code: 'error', message: 'boom' });
    expect(toBackendError('{"code":"io","message":"disk full"}')).toEqual({ code: 'io', message: 'disk full' });
    expect(toBackendError(new TypeError('bad'))).toEqual({ code: 'TypeError', message: 'bad' });
    expect(toBackendError({ message: 'only a message' })).toEqual({ code: 'error', message: 'only a message' });
    expect(toBackendError({ weird: true }).message).toBe('{"weird":true}');
    expect(toBackendError(undefined).message).toBe('Unknown error');
    expect(errorMessage({ code: 'x', message: 'y' })).toBe('y');
  });

  it('never produces [object Object]', () => {
    for (const v of [{}, { a: { b: 1 } }, [], null, 42]) expect(toBackendError(v).message).not.toContain('[object Object]');
  });
});
