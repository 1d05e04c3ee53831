import { expect } from 'vitest';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../App';
import type { Backend } from '../backend';
import { FakeBackend, type FakeOptions } from '../backend/fake';
import type { View } from '../state/nav';

/** The sample backend with some methods replaced (a small test double of `Backend`). */
export function stubBackend(overrides: Partial<Backend> = {}, options: FakeOptions = {}): Backend {
  const base = new FakeBackend({ delayMs: 1, ...options });
  return Object.assign(base, overrides) as Backend;
}

export function renderApp(backend: Backend, { view = 'search', debounceMs = 150 }: { view?: View; debounceMs?: number } = {}) {
  const user = userEvent.setup();
  const result = render(<App backend={backend} initialView={view} debounceMs={debounceMs} />);
  return { user, ...result };
}

/** A promise with its resolve/reject exposed. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sets the search query in one change (no intermediate queries) and waits until the results for
 * exactly that query are shown; returns the hit elements.
 */
export async function searchFor(value: string): Promise<HTMLElement[]> {
  const input = screen.getByTestId('search-input');
  act(() => input.focus());
  fireEvent.change(input, { target: { value } });
  await waitFor(() => expect(screen.getByTestId('results-status').textContent).toMatch(/\d+ results?$/), { timeout: 3000 });
  return screen.getAllByTestId('hit');
}
