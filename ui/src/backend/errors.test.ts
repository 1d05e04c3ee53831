import { describe, expect, it } from 'vitest';
import { errorAdvice, errorMessage, isErrorCode, toBackendError } from './errors';

describe('toBackendError', () => {
  it('keeps {code, message} objects', () => {
    expect(toBackendError({ code: 'not_found', message: 'No such document', extra: 1 })).toEqual({ code: 'not_found', message: 'No such document' });
  });

  it('normalises strings, Errors and other objects; what the engine did not send is internal', () => {
    expect(toBackendError('boom')).toEqual({ code: 'internal', message: 'boom' });
    expect(toBackendError('{"code":"io","message":"disk full"}')).toEqual({ code: 'io', message: 'disk full' });
    expect(toBackendError(new TypeError('bad'))).toEqual({ code: 'internal', message: 'bad' });
    expect(toBackendError({ message: 'only a message' })).toEqual({ code: 'internal', message: 'only a message' });
    expect(toBackendError({ code: 'no_such_code', message: 'm' })).toEqual({ code: 'internal', message: 'm' });
    expect(toBackendError({ weird: true }).message).toBe('{"weird":true}');
    expect(toBackendError(undefined).message).toBe('Unknown error');
    expect(errorMessage({ code: 'x', message: 'y' })).toBe('y');
  });

  it('never produces [object Object]', () => {
    for (const v of [{}, { a: { b: 1 } }, [], null, 42]) expect(toBackendError(v).message).not.toContain('[object Object]');
  });
});

describe('error codes', () => {
  it('knows the engine codes and nothing else', () => {
    expect(isErrorCode('damaged')).toBe(true);
    expect(isErrorCode('wrong_extension')).toBe(true);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('error')).toBe(false);
  });

  it('advises on what the user can fix', () => {
    expect(errorAdvice('encrypted')).toMatch(/without the password/);
    expect(errorAdvice('not_found')).toBeNull();
  });
});
