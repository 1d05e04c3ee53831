import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { deferred } from '../test/helpers';
import { NavContext, type Nav } from './nav';
import { useQuery, type QueryOptions } from './query';

/** A Nav whose only meaningful field is the library version the query follows. */
function navAt(libraryVersion: number): Nav {
  return { view: 'library', setView() {}, open() {}, replace() {}, libraryVersion, libraryChanged() {} };
}

type Props = { id: string; version: number; options?: QueryOptions };

/**
 * Renders `useQuery` over `fetch(id)` inside a Nav at `version`; `rerender` changes either. Each
 * call of `fetch` returns the next of `answers` (deferred, so a test settles them in any order).
 */
function setup(first: Props) {
  const answers: ReturnType<typeof deferred<string>>[] = [];
  const fetch = vi.fn((_id: string) => {
    const d = deferred<string>();
    answers.push(d);
    return d.promise;
  });
  let version = first.version;
  const wrapper = ({ children }: { children: ReactNode }) => <NavContext.Provider value={navAt(version)}>{children}</NavContext.Provider>;
  const hook = renderHook(({ id, options }: Props) => useQuery(() => fetch(id), [id], options), { initialProps: first, wrapper });
  const rerender = (next: Props) => {
    version = next.version;
    hook.rerender(next);
  };
  return { ...hook, rerender, fetch, answers };
}

describe('useQuery', () => {
  it('loads, then holds the answer', async () => {
    const { result, answers, fetch } = setup({ id: 'a', version: 0 });
    expect(result.current).toMatchObject({ data: undefined, error: null, loading: true });
    expect(fetch).toHaveBeenCalledWith('a');
    await act(async () => answers[0].resolve('A'));
    expect(result.current).toMatchObject({ data: 'A', error: null, loading: false });
  });

  it('drops a stale answer: the first request settling after the second changes nothing', async () => {
    const { result, answers, rerender } = setup({ id: 'a', version: 0 });
    rerender({ id: 'b', version: 0 });
    expect(answers).toHaveLength(2);
    await act(async () => answers[1].resolve('B'));
    expect(result.current.data).toBe('B');
    await act(async () => answers[0].resolve('A (late)'));
    expect(result.current).toMatchObject({ data: 'B', loading: false });
    // A late failure of the dropped request is not shown either.
    rerender({ id: 'c', version: 0 });
    rerender({ id: 'd', version: 0 });
    await act(async () => answers[3].resolve('D'));
    await act(async () => answers[2].reject(new Error('too late')));
    expect(result.current).toMatchObject({ data: 'D', error: null });
  });

  it('shows nothing of the previous dependencies while the new answer loads, unless asked to keep it', async () => {
    const plain = setup({ id: 'a', version: 0 });
    await act(async () => plain.answers[0].resolve('A'));
    plain.rerender({ id: 'b', version: 0 });
    expect(plain.result.current).toMatchObject({ data: undefined, loading: true });
    plain.unmount();

    const kept = setup({ id: 'a', version: 0, options: { keepPrevious: true } });
    await act(async () => kept.answers[0].resolve('A'));
    kept.rerender({ id: 'b', version: 0, options: { keepPrevious: true } });
    expect(kept.result.current).toMatchObject({ data: 'A', loading: true });
    await act(async () => kept.answers[1].resolve('B'));
    expect(kept.result.current).toMatchObject({ data: 'B', loading: false });
  });

  it('surfaces a failure as the engine’s {code, message}, and clears it when a request succeeds', async () => {
    const { result, answers } = setup({ id: 'a', version: 0 });
    await act(async () => answers[0].reject({ code: 'not_found', message: "no document 'a'" }));
    expect(result.current).toMatchObject({ data: undefined, loading: false, error: { code: 'not_found', message: "no document 'a'" } });

    act(() => result.current.refetch());
    await act(async () => answers[1].reject(new Error('disk gone')));
    expect(result.current.error).toEqual({ code: 'internal', message: 'disk gone' });

    act(() => result.current.refetch());
    await act(async () => answers[2].resolve('A'));
    expect(result.current).toMatchObject({ data: 'A', error: null });
  });

  it('fetches again when the library changes, showing the old answer meanwhile', async () => {
    const { result, answers, fetch, rerender } = setup({ id: 'a', version: 0 });
    await act(async () => answers[0].resolve('A1'));
    rerender({ id: 'a', version: 0 });
    expect(fetch).toHaveBeenCalledTimes(1);

    rerender({ id: 'a', version: 1 });
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(result.current).toMatchObject({ data: 'A1', loading: true });
    await act(async () => answers[1].resolve('A2'));
    expect(result.current).toMatchObject({ data: 'A2', loading: false });
  });

  it('keeps the old answer when fetching again fails, and says why', async () => {
    const { result, answers, rerender } = setup({ id: 'a', version: 0 });
    await act(async () => answers[0].resolve('A1'));
    rerender({ id: 'a', version: 1 });
    await act(async () => answers[1].reject({ code: 'storage', message: 'disk full' }));
    expect(result.current).toMatchObject({ data: 'A1', error: { code: 'storage', message: 'disk full' } });
  });

  it('ignores library changes when it does not read the library', async () => {
    const options = { library: false };
    const { answers, fetch, rerender } = setup({ id: 'a', version: 0, options });
    await act(async () => answers[0].resolve('A'));
    rerender({ id: 'a', version: 1, options });
    rerender({ id: 'a', version: 2, options });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('fetches nothing while disabled', async () => {
    const { result, fetch, answers, rerender } = setup({ id: 'a', version: 0, options: { enabled: false } });
    expect(fetch).not.toHaveBeenCalled();
    expect(result.current).toMatchObject({ data: undefined, loading: false, error: null });
    rerender({ id: 'a', version: 0, options: { enabled: true } });
    expect(fetch).toHaveBeenCalledTimes(1);
    await act(async () => answers[0].resolve('A'));
    expect(result.current.data).toBe('A');
  });

  it('set replaces the data and drops the answer in flight', async () => {
    const { result, answers } = setup({ id: 'a', version: 0 });
    await act(async () => answers[0].resolve('A'));
    act(() => result.current.refetch());
    expect(result.current.loading).toBe(true);
    act(() => result.current.set((previous) => `${previous} (changed)`));
    expect(result.current).toMatchObject({ data: 'A (changed)', loading: false });
    await act(async () => answers[1].resolve('A (before the change)'));
    expect(result.current.data).toBe('A (changed)');
  });

});
