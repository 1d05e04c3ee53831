import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Hit, SearchRequest } from '../backend/types';
import { deferred, renderApp, searchFor, sleep, stubBackend } from '../test/helpers';

function hit(id: number, text: string, extra: Partial<Hit> = {}): Hit {
  return {
    chunk_id: id,
    score: 1,
    doc_id: 1,
    document: 'General Rulebook',
    label: 'GEN',
    path: '/GEN.pdf',
    section_id: `sec_${id}`,
    section_number: `${id}`,
    section_ids: [`sec_${id}`],
    parent_chain: ['General Rulebook'],
    crumbs: [{ section_id: `sec_${id}`, heading: `${id} Heading ${id}` }],
    chunk_type: 'requirement',
    pages: { start: 12, end: 13 },
    span: { start: 0, end: text.length },
    content: text,
    contextualized: text,
    snippet: text,
    dense: { rank: 1, score: 0.8 },
    keyword: null,
    exact: null,
    citation: `GEN ${id}`,
    timings_ms: { embed: 6.2, dense: 0.9, keyword: 0.4, exact: 0.1, total: 7.8 },
    ...extra,
  };
}

describe('search', () => {
  it('debounces typing into one request for the final query (~150 ms)', async () => {
    vi.useFakeTimers();
    try {
      const search = vi.fn(async (_req: SearchRequest) => [hit(1, 'found')]);
      renderApp(stubBackend({ search }));
      const input = screen.getByTestId('search-input');
      for (const value of ['i', 'in', 'int']) {
        fireEvent.change(input, { target: { value } });
        act(() => vi.advanceTimersByTime(100));
      }
      expect(search).not.toHaveBeenCalled();
      act(() => vi.advanceTimersByTime(49));
      expect(search).not.toHaveBeenCalled();
      await act(async () => {
        vi.advanceTimersByTime(1);
      });
      expect(search).toHaveBeenCalledTimes(1);
      expect(search.mock.calls[0][0]).toEqual({ query: 'int', limit: 30, documents: [], chunk_types: [], section: null });
      await act(async () => {
        vi.advanceTimersByTime(500);
      });
      expect(search).toHaveBeenCalledTimes(1);
      expect(screen.getAllByTestId('hit')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('sends nothing for an empty query', async () => {
    const search = vi.fn(async () => [hit(1, 'x')]);
    renderApp(stubBackend({ search }), { debounceMs: 5 });
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: '   ' } });
    await sleep(40);
    expect(search).not.toHaveBeenCalled();
  });

  it('ignores a stale response that arrives after a newer one', async () => {
    const pending: { req: SearchRequest; d: ReturnType<typeof deferred<Hit[]>> }[] = [];
    const search = vi.fn((req: SearchRequest) => {
      const d = deferred<Hit[]>();
      pending.push({ req, d });
      return d.promise;
    });
    renderApp(stubBackend({ search }), { debounceMs: 20 });
    const input = screen.getByTestId('search-input');
    fireEvent.change(input, { target: { value: 'old' } });
    await waitFor(() => expect(pending).toHaveLength(1));
    fireEvent.change(input, { target: { value: 'new' } });
    await waitFor(() => expect(pending).toHaveLength(2));
    expect(pending.map((p) => p.req.query)).toEqual(['old', 'new']);

    await act(async () => pending[1].d.resolve([hit(2, 'the new answer')]));
    expect(await screen.findByText('the new answer')).toBeInTheDocument();
    await act(async () => pending[0].d.resolve([hit(1, 'the old answer')]));
    await sleep(30);
    expect(screen.queryByText('the old answer')).toBeNull();
    expect(screen.getAllByTestId('hit')).toHaveLength(1);
  });

  it('includes the document, chunk-type and within-section filters in requests', async () => {
    const search = vi.fn(async (_req: SearchRequest) => [
      hit(7, 'x', { crumbs: [{ section_id: 'sec_2', heading: '2 Core' }, { section_id: 'sec_7', heading: '2.7 Seven' }], chunk_type: 'table' }),
    ]);
    const { user } = renderApp(stubBackend({ search }), { debounceMs: 10 });
    await searchFor('records');
    const lastReq = () => search.mock.calls[search.mock.calls.length - 1][0];

    const types = screen.getByTestId('filter-chunk-type');
    // Every type the engine has, whatever the results hold.
    expect(within(types).getByRole('checkbox', { name: 'guidance' })).toHaveAttribute('data-value', 'guidance');
    expect([...types.querySelectorAll('[data-value]')].map((e) => e.getAttribute('data-value'))).toEqual([
      'requirement',
      'guidance',
      'definition',
      'note',
      'table',
      'content',
    ]);
    await user.click(types.querySelector('[data-value="requirement"]')!);
    await waitFor(() => expect(lastReq().chunk_types).toEqual(['requirement']));

    const docsFilter = screen.getByTestId('filter-document');
    await waitFor(() => expect(docsFilter.querySelector('[data-value="2"]')).not.toBeNull());
    await user.click(docsFilter.querySelector('[data-value="2"]')!);
    await waitFor(() => expect(lastReq().documents).toEqual(['2']));

    await user.click(screen.getAllByTestId('crumb-scope')[0]);
    await waitFor(() => expect(lastReq().section).toEqual({ doc: '1', section_id: 'sec_2' }));
    expect(screen.getByTestId('section-filter')).toHaveTextContent('Within GEN 2 Core');
    expect(lastReq()).toMatchObject({ query: 'records', chunk_types: ['requirement'], documents: ['2'] });

    await user.click(screen.getByTestId('clear-section-filter'));
    await waitFor(() => expect(lastReq().section).toBeNull());
    expect(screen.queryByTestId('section-filter')).toBeNull();
  });

  it('shows the printed number or the heading of a hit’s section, never its id', async () => {
    const search = vi.fn(async () => [
      // A filing's note: its number as printed.
      hit(1, 'revenue', {
        section_id: 's_11_14_1',
        section_number: 'Note 12',
        crumbs: [{ section_id: 's_11_14_1', heading: 'Note 12 — Revenue' }],
      }),
      // Guidance with no printed number, filed under its rule: the rule's heading.
      hit(2, 'revenue', {
        section_id: 'sec_12_1_3_guidance_1',
        section_number: null,
        crumbs: [{ section_id: 'sec_12_1_3', heading: '12.1.3 Reporting' }],
      }),
    ]);
    renderApp(stubBackend({ search }), { debounceMs: 5 });
    const [note, guidance] = await searchFor('revenue');
    expect(within(note).getByTestId('hit-title')).toHaveTextContent('Note 12 — Revenue');
    expect(within(note).getByTestId('hit-number')).toHaveTextContent('Note 12');
    expect(within(guidance).getByTestId('hit-title')).toHaveTextContent('12.1.3 Reporting');
    expect(within(guidance).queryByTestId('hit-number')).toBeNull();
    const shown = screen.getByRole('listbox', { name: 'Results' }).textContent ?? '';
    expect(shown).not.toMatch(/\b(?:sec|s|part|item)_[0-9a-z_]+\b/);
    // The ids stay where the app needs them.
    expect(note).toHaveAttribute('data-section-id', 's_11_14_1');
  });

  it('renders each hit: breadcrumb, badge, source and pages, marked snippet, channels', async () => {
    const search = vi.fn(async () => [
      hit(3, '', {
        snippet: 'must keep [[records]] <img src=x onerror=alert(1)>',
        keyword: { rank: 2, score: 7.5 },
        exact: { rank: 1, score: 1 },
      }),
    ]);
    renderApp(stubBackend({ search }), { debounceMs: 5 });
    const [card] = await searchFor('records');
    expect(within(card).getByTestId('hit-title')).toHaveTextContent('3 Heading 3');
    expect(within(card).getByTestId('hit-number')).toHaveTextContent('3');
    expect(card).toHaveAttribute('data-chunk-id', '3');
    expect(card).toHaveAttribute('data-section-id', 'sec_3');
    expect(within(card).getByTestId('chunk-type-badge')).toHaveTextContent('requirement');
    expect(card).toHaveTextContent('pp. 12–13');
    expect(card.querySelector('mark')?.textContent).toBe('records');
    expect(card.querySelector('img')).toBeNull();
    const chips = within(card).getAllByTestId('channel');
    expect(chips.map((c) => c.dataset.channel)).toEqual(['dense', 'keyword', 'exact']);
    expect(chips[1]).toHaveAttribute('title', 'keyword: rank 2, score 7.500');
  });

  it('copies the citation', async () => {
    const copyText = vi.fn(async () => {});
    const { user } = renderApp(stubBackend({ copyText, search: async () => [hit(4, 'x', { citation: 'GEN 4 (p. 12)' })] }), { debounceMs: 5 });
    await searchFor('x');
    await user.click(screen.getByTestId('copy-citation'));
    expect(copyText).toHaveBeenCalledWith('GEN 4 (p. 12)');
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });

  it('shows a backend error’s message', async () => {
    const search = vi.fn(async () => {
      throw { code: 'storage', message: 'The index is being rebuilt.' };
    });
    const { user } = renderApp(stubBackend({ search }), { debounceMs: 5 });
    await user.type(screen.getByTestId('search-input'), 'x');
    expect(await screen.findByRole('alert')).toHaveTextContent('The index is being rebuilt.');
    expect(document.body.textContent).not.toContain('[object Object]');
  });
});

describe('search keyboard', () => {
  it('moves the selection with ↑/↓ and opens the selected hit with Enter', async () => {
    const { user } = renderApp(stubBackend(), { debounceMs: 5 });
    const input = screen.getByTestId('search-input');
    const hits = await searchFor('authorised person');
    expect(hits.length).toBeGreaterThan(2);
    expect(hits[0]).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(screen.getAllByTestId('hit')[2]).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowUp}');
    const chosen = screen.getAllByTestId('hit')[1];
    expect(chosen).toHaveAttribute('aria-selected', 'true');
    expect(screen.getAllByTestId('hit')[0]).toHaveAttribute('aria-selected', 'false');
    expect(input).toHaveAttribute('aria-activedescendant', chosen.id);
    const sectionId = chosen.dataset.sectionId!;

    await user.keyboard('{Enter}');
    const heading = await screen.findByTestId('reader-heading');
    await waitFor(() => expect(heading).toHaveAttribute('data-section-id', sectionId));
    expect(screen.getByTestId('nav-reader')).toHaveAttribute('aria-current', 'page');
  });

  it('scrolls a hit selected with the keyboard into view, not one pressed with the mouse', async () => {
    // Scrolling under the pointer between press and release would move the click off the title.
    const scroll = vi.fn();
    const original = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = scroll;
    try {
      const { user } = renderApp(stubBackend(), { debounceMs: 5 });
      const hits = await searchFor('authorised person');
      expect(hits.length).toBeGreaterThan(2);
      scroll.mockClear();
      fireEvent.mouseDown(hits[2]);
      await waitFor(() => expect(screen.getAllByTestId('hit')[2]).toHaveAttribute('aria-selected', 'true'));
      expect(scroll).not.toHaveBeenCalled();
      act(() => screen.getByTestId('search-input').focus());
      await user.keyboard('{ArrowDown}');
      expect(screen.getAllByTestId('hit')[3]).toHaveAttribute('aria-selected', 'true');
      expect(scroll).toHaveBeenCalledTimes(1);
    } finally {
      Element.prototype.scrollIntoView = original;
    }
  });

  it('does not move past either end', async () => {
    const { user } = renderApp(stubBackend(), { debounceMs: 5 });
    const hits = await searchFor('integrity');
    await user.keyboard('{ArrowUp}');
    expect(hits[0]).toHaveAttribute('aria-selected', 'true');
    for (let i = 0; i < hits.length + 2; i++) await user.keyboard('{ArrowDown}');
    expect(screen.getAllByTestId('hit')[hits.length - 1]).toHaveAttribute('aria-selected', 'true');
  });

  it('Esc clears the query and results', async () => {
    const { user } = renderApp(stubBackend(), { debounceMs: 5 });
    const input = screen.getByTestId('search-input');
    await searchFor('integrity');
    await user.keyboard('{Escape}');
    expect(input).toHaveValue('');
    await waitFor(() => expect(screen.queryAllByTestId('hit')).toHaveLength(0));
  });

  it('focuses the search box with / and Ctrl+K from another view', async () => {
    const { user } = renderApp(stubBackend(), { view: 'library' });
    await screen.findAllByTestId('doc-row');
    await user.keyboard('/');
    const input = screen.getByTestId('search-input');
    expect(input).toHaveFocus();
    expect(input).toHaveValue('');

    await user.click(screen.getByTestId('nav-definitions'));
    expect(input).not.toHaveFocus();
    await user.keyboard('{Control>}k{/Control}');
    expect(screen.getByTestId('search-input')).toHaveFocus();
  });

  it('leaves / alone while typing in another input', async () => {
    const { user } = renderApp(stubBackend(), { view: 'definitions' });
    const filter = screen.getByTestId('glossary-filter');
    await user.click(filter);
    await user.keyboard('a/b');
    expect(filter).toHaveValue('a/b');
    expect(filter).toHaveFocus();
    expect(screen.getByTestId('nav-definitions')).toHaveAttribute('aria-current', 'page');
  });
});
