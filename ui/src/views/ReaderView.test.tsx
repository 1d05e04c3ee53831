import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Backend } from '../backend';
import { deferred, renderApp, searchFor, stubBackend } from '../test/helpers';

/** Opens a section through search: type a rule number, Enter on the first (exact) hit. */
async function openVia(user: UserEvent, query: string, sectionId: string) {
  await user.click(screen.getByTestId('nav-search'));
  const hits = await searchFor(query);
  expect(hits[0]).toHaveAttribute('data-section-id', sectionId);
  await user.keyboard('{Enter}');
  await expectSection(sectionId);
}

async function expectSection(sectionId: string) {
  await waitFor(() => expect(screen.getByTestId('reader-heading')).toHaveAttribute('data-section-id', sectionId));
}

function setup(overrides: Partial<Backend> = {}) {
  return renderApp(stubBackend(overrides), { debounceMs: 5 });
}

describe('reader', () => {
  it('opens a document at its first section from the reader’s document list', async () => {
    const { user } = renderApp(stubBackend(), { view: 'reader' });
    await user.click(await screen.findByRole('button', { name: /GEN General Rulebook/ }));
    await expectSection('s_1');
    expect(screen.getByTestId('reader-heading')).toHaveTextContent('General Rulebook');
    expect(screen.getByTestId('back')).toBeDisabled();
  });

  it('shows the section text with terms and links as text nodes', async () => {
    const { user } = setup();
    await openVia(user, '2.1.2', 'sec_2_1_2');
    const text = screen.getByTestId('reader-text');
    expect(text).toHaveTextContent('An Authorised Person must act with due skill, care and diligence');
    const term = within(text).getAllByTestId('term')[0];
    expect(term).toHaveTextContent('Authorised Person');
    expect(term).toHaveAttribute('data-key', 'authorised_person');
    expect(term).toHaveAttribute('tabindex', '0');
    const link = within(text).getByTestId('xref');
    expect(link).toHaveTextContent('Rule 2.1.3');
    expect(link).toHaveAttribute('data-target-section', 'sec_2_1_3');
  });

  it('shows a table as a grid with its header row', async () => {
    const { user } = setup();
    await openVia(user, '2.3', 'sec_2_3');
    const text = screen.getByTestId('reader-text');
    expect(text).toHaveTextContent('Records are kept for at least the periods in the table below.');
    const table = within(text).getByTestId('reader-table');
    const head = within(table).getAllByRole('columnheader').map((c) => c.textContent);
    expect(head).toEqual(['Record', 'Retention period (years)']);
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => Array.from(r.children).map((c) => c.textContent))).toEqual([
      ['Client agreements', '6'],
      ['Transaction records', '6'],
      ['Complaints', '3'],
    ]);
    expect(within(rows[0]).getByRole('rowheader')).toHaveTextContent('Client agreements');
  });

  it('marks references that are not in the library', async () => {
    const { user } = setup();
    await openVia(user, '2.1.3', 'sec_2_1_3');
    const unresolved = screen.getByTestId('xref-unresolved');
    expect(unresolved).toHaveTextContent('COBS Rule 6.1.1');
    expect(unresolved).toHaveAttribute('title', 'COBS, Rule 6.1.1: not in your library');
    expect(unresolved.tagName).not.toBe('A');
  });

  it('follows a cross-reference and goes back and forward (buttons and Alt+←/→)', async () => {
    const { user } = setup();
    await openVia(user, '2.1.2', 'sec_2_1_2');
    await user.click(screen.getByTestId('xref'));
    await expectSection('sec_2_1_3');
    expect(screen.getByTestId('forward')).toBeDisabled();

    await user.click(screen.getByTestId('back'));
    await expectSection('sec_2_1_2');
    expect(screen.getByTestId('forward')).toBeEnabled();
    await user.click(screen.getByTestId('forward'));
    await expectSection('sec_2_1_3');

    await user.keyboard('{Alt>}{ArrowLeft}{/Alt}');
    await expectSection('sec_2_1_2');
    await user.keyboard('{Alt>}{ArrowRight}{/Alt}');
    await expectSection('sec_2_1_3');

    // Going back then somewhere new drops the forward entries.
    await user.click(screen.getByTestId('back'));
    await expectSection('sec_2_1_2');
    await user.click(screen.getAllByTestId('reader-crumb')[0]);
    await expectSection('sec_2');
    expect(screen.getByTestId('forward')).toBeDisabled();
  });

  it('renders the breadcrumb; each segment navigates', async () => {
    const { user } = setup();
    await openVia(user, '2.1.1', 'sec_2_1_1');
    const crumbs = screen.getAllByTestId('reader-crumb');
    expect(crumbs.map((c) => c.textContent)).toEqual(['2 Core Principles', '2.1 Principles for Authorised Persons', '2.1.1 Principle 1 – Integrity']);
    expect(crumbs[2]).toHaveAttribute('aria-current', 'page');
    await user.click(crumbs[1]);
    await expectSection('sec_2_1');
    expect(screen.getByTestId('reader-heading')).toHaveTextContent('2.1 Principles for Authorised Persons');
  });

  it('a hit’s breadcrumb opens the reader at that crumb', async () => {
    const { user } = setup();
    const [first] = await searchFor('diligence');
    const crumbs = within(first).getAllByTestId('hit-crumb');
    expect(crumbs.map((c) => c.textContent)).toEqual(['2 Core Principles', '2.1 Principles for Authorised Persons', '2.1.2 Principle 2 – Due skill, care and diligence']);
    await user.click(crumbs[0]);
    await expectSection('sec_2');
    expect(screen.getByTestId('nav-reader')).toHaveAttribute('aria-current', 'page');
  });

  it('keeps a definition popover beside its term as the text scrolls, and closes it once the term is out of view', async () => {
    const { user } = setup();
    await openVia(user, '2.1.1', 'sec_2_1_1');
    const term = screen.getAllByTestId('term').find((t) => t.dataset.key === 'authorised_person')!;
    const at = (top: number) => vi.spyOn(term, 'getBoundingClientRect').mockReturnValue(new DOMRect(40, top, 120, 18));
    at(300);
    act(() => term.focus());
    expect(await screen.findByTestId('definition-popover')).toBeInTheDocument();
    // Focusing a term scrolls it into view: the popover follows it (it used to close).
    at(120);
    act(() => {
      window.dispatchEvent(new Event('scroll'));
    });
    const popover = screen.getByTestId('definition-popover');
    expect(popover.style.top).toBe(`${120 + 18 + 6}px`);
    at(-200);
    act(() => {
      window.dispatchEvent(new Event('scroll'));
    });
    await waitFor(() => expect(screen.queryByTestId('definition-popover')).toBeNull());
  });

  it('shows a definition popover on hover and on focus, with a link to the definition', async () => {
    const define = vi.fn(stubBackend().define);
    const { user } = setup({ define });
    await openVia(user, '2.1.1', 'sec_2_1_1');
    const term = screen.getAllByTestId('term').find((t) => t.dataset.key === 'authorised_person')!;

    await user.hover(term);
    const popover = await screen.findByTestId('definition-popover');
    await waitFor(() => expect(popover).toHaveTextContent('“Authorised Person” means a person, other than an Approved Individual'));
    await waitFor(() => expect(popover).toHaveTextContent('Defined in GLO › Authorised Person'));
    expect(term).toHaveAttribute('aria-describedby', 'definition-popover');

    await user.unhover(term);
    await waitFor(() => expect(screen.queryByTestId('definition-popover')).toBeNull());

    act(() => term.focus());
    expect(await screen.findByTestId('definition-popover')).toHaveTextContent('holds a licence');
    expect(define).toHaveBeenCalledTimes(1); // cached per term

    await user.click(within(screen.getByTestId('definition-popover')).getByText('Go to definition'));
    await waitFor(() => expect(screen.getByTestId('reader-heading')).toHaveAttribute('data-section-id', 's_1_1_2'));
    expect(screen.getByTestId('reader-heading')).toHaveTextContent('Authorised Person');
  });

  it('prefers the definition that applies in the current scope', async () => {
    const { user } = setup();
    await openVia(user, '2.1.3', 'sec_2_1_3');
    const term = screen.getAllByTestId('term').find((t) => t.dataset.key === 'senior_management')!;
    fireEvent.focus(term);
    const popover = await screen.findByTestId('definition-popover');
    await waitFor(() => expect(popover).toHaveTextContent('responsible for the day-to-day management'));
    expect(popover).toHaveTextContent('applies within 2 Core Principles');
  });

  it('builds the outline tree: current section highlighted, ancestors expanded, collapsible', async () => {
    const { user } = setup();
    await openVia(user, '2.1.3', 'sec_2_1_3');
    const items = () => screen.getAllByTestId('outline-item');
    const current = items().filter((i) => i.getAttribute('aria-current') === 'true');
    expect(current.map((c) => c.dataset.sectionId)).toEqual(['sec_2_1_3']);
    // Ancestors 2 and 2.1 are expanded, so their children show; chapter 1 is collapsed.
    const ids = items().map((i) => i.dataset.sectionId);
    expect(ids).toEqual(expect.arrayContaining(['sec_1', 'sec_2', 'sec_2_1', 'sec_2_1_1', 'sec_2_1_4', 'sec_2_2', 'sec_2_3']));
    expect(ids).not.toContain('sec_1_1');

    await user.click(screen.getByRole('button', { name: 'Expand 1 Introduction' }));
    expect(items().map((i) => i.dataset.sectionId)).toContain('sec_1_1');
    await user.click(screen.getByRole('button', { name: 'Collapse 2.1 Principles for Authorised Persons' }));
    expect(items().map((i) => i.dataset.sectionId)).not.toContain('sec_2_1_1');

    await user.click(items().find((i) => i.dataset.sectionId === 'sec_1_1')!);
    await expectSection('sec_1_1');
    expect(items().find((i) => i.dataset.sectionId === 'sec_1_1')).toHaveAttribute('aria-current', 'true');
  });

  it('lists incoming and outgoing references; a backlink opens its section in its document', async () => {
    const { user } = setup();
    await openVia(user, '2.1.1', 'sec_2_1_1');
    const backlinks = await screen.findAllByTestId('backlink');
    expect(backlinks.map((b) => b.textContent)).toEqual(expect.arrayContaining(['GLO Authorised Person', 'GEN 2.2 Principles for Approved Individuals']));
    await user.click(backlinks.find((b) => b.textContent?.startsWith('GLO'))!);
    await expectSection('s_1_1_2');
    const out = await screen.findAllByTestId('reference');
    expect(out[0]).toHaveTextContent('GEN Rule 2.1.1');
    await user.click(out[0]);
    await expectSection('sec_2_1_1');
  });

  it('lists each outgoing reference under the part it is written in, the subsections’ included', async () => {
    const { user } = setup();
    await openVia(user, '2.1', 'sec_2_1');
    // 2.1 has no reference of its own; its subsections have.
    const groups = await screen.findAllByTestId('reference-group');
    expect(groups.map((g) => [g.dataset.fromSection, within(g).getByTestId('reference-group-name').textContent])).toEqual([
      ['sec_2_1_2', 'In 2.1.2 Principle 2 – Due skill, care and diligence'],
      ['sec_2_1_3', 'In 2.1.3 Principle 3 – Management, systems and controls'],
      ['sec_2_1_4', 'In 2.1.4 Guidance on Principle 3'],
    ]);
    expect(within(groups[1]).getByTestId('reference-unresolved')).toHaveTextContent('COBS, Rule 6.1.1: not in your library');
    expect(screen.queryByText(/refers to nothing/)).toBeNull();

    await user.click(within(groups[0]).getByTestId('reference'));
    await expectSection('sec_2_1_3');
    const own = await screen.findAllByTestId('reference-group');
    expect(own.map((g) => g.textContent)).toEqual(['In this sectionCOBS, Rule 6.1.1: not in your library']);
  });

  it('shows no internal id in the heading line: the heading, and the printed number where the heading lacks it', async () => {
    const { user } = renderApp(stubBackend(), { view: 'reader' });
    await user.click(await screen.findByRole('button', { name: /GEN General Rulebook/ }));
    await expectSection('s_1');
    const line = () => `${screen.getByTestId('reader-heading').textContent} ${screen.getByTestId('reader-meta').textContent}`;
    expect(line()).toBe('General Rulebook GEN General Rulebook · p. 1');
    await user.click(screen.getAllByTestId('outline-item').find((i) => i.dataset.sectionId === 'sec_2')!);
    await expectSection('sec_2');
    expect(line()).toBe('2 Core Principles GEN General Rulebook · pp. 2–5');
    expect(line()).not.toMatch(/\b(?:sec|s|part|item)_[0-9a-z_]+\b/);
  });

  it('names a definition’s section by its heading, and leaves it out rather than show its id', async () => {
    const base = stubBackend();
    // The glossary's outline cannot be read: its headings are unknown.
    const outline = vi.fn(async (doc: string) => {
      if (doc === '2') throw { code: 'storage', message: 'busy' };
      return base.outline(doc);
    });
    const { user } = setup({ outline });
    await openVia(user, '2.1.1', 'sec_2_1_1');
    const term = screen.getAllByTestId('term').find((t) => t.dataset.key === 'authorised_person')!;
    act(() => term.focus());
    const popover = await screen.findByTestId('definition-popover');
    await waitFor(() => expect(popover).toHaveTextContent('“Authorised Person” means'));
    await waitFor(() => expect(outline).toHaveBeenCalledWith('2'));
    expect(popover.querySelector('.popover-source')?.textContent).toBe('Defined in GLO');
    expect(popover).not.toHaveTextContent('s_1_1_2');
  });

  it('opens the original PDF page with highlights and pages through it', async () => {
    const pageImage = vi.fn(stubBackend().pageImage);
    const { user } = setup({ pageImage });
    await openVia(user, '2.1.3', 'sec_2_1_3');
    await user.click(screen.getByTestId('open-original'));
    const img = await screen.findByTestId('page-image');
    expect(img.getAttribute('src')).toMatch(/^data:image\/png;base64,iVBOR/);
    // A quick narrow image and the full one.
    expect(pageImage).toHaveBeenCalledWith('1', 3, 1007, 360);
    expect(pageImage).toHaveBeenCalledWith('1', 3, 1007, null);
    await waitFor(() => expect(screen.getByTestId('page-frame')).toHaveAttribute('data-resolution', 'full'));
    // Every line of the passage is marked.
    const full = await stubBackend().pageImage('1', 3, 1007, null);
    expect(full.highlights.length).toBeGreaterThan(1);
    expect(screen.getAllByTestId('page-highlight')).toHaveLength(full.highlights.length);
    expect(screen.getByTestId('page-number')).toHaveTextContent('Page 3 of 5');
    await user.click(screen.getByTestId('next-page'));
    await waitFor(() => expect(pageImage).toHaveBeenLastCalledWith('1', 4, 1007, null));
    expect(screen.getByTestId('page-number')).toHaveTextContent('Page 4 of 5');
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('original-dialog')).toBeNull();
  });

  it('shows a quick low-resolution page at once, then the full one in its place, highlights scaled to each', async () => {
    const base = stubBackend();
    const fullDrawn = deferred<void>();
    // The full image is held back until the test lets it through.
    const pageImage = vi.fn(async (doc: string, page: number, chunkId: number | null, width?: number | null) => {
      const image = await base.pageImage(doc, page, chunkId, width);
      if (width === null) await fullDrawn.promise;
      return image;
    });
    const { user } = setup({ pageImage });
    await openVia(user, '2.1.3', 'sec_2_1_3');
    await user.click(screen.getByTestId('open-original'));
    const frame = await screen.findByTestId('page-frame');
    expect(frame).toHaveAttribute('data-resolution', 'quick');
    expect(screen.getByTestId('page-image')).toHaveAttribute('width', '360');
    const quick = await base.pageImage('1', 3, 1007, 360);
    const quickTops = screen.getAllByTestId('page-highlight').map((h) => parseFloat(h.style.top));
    expect(quickTops).toHaveLength(quick.highlights.length);
    expect(quickTops[0]).toBeCloseTo((quick.highlights[0].y / quick.height) * 100, 5);

    await act(async () => fullDrawn.resolve());
    await waitFor(() => expect(screen.getByTestId('page-frame')).toHaveAttribute('data-resolution', 'full'));
    const full = await base.pageImage('1', 3, 1007, null);
    expect(full.width).toBeGreaterThan(360);
    expect(screen.getByTestId('page-image')).toHaveAttribute('width', String(full.width));
    // The same places on the page, now in the full image's pixels.
    const fullTops = screen.getAllByTestId('page-highlight').map((h) => parseFloat(h.style.top));
    expect(fullTops).toHaveLength(quickTops.length);
    fullTops.forEach((t, i) => expect(t).toBeCloseTo(quickTops[i], 0));
  });

  it('opens the original at the page the hit’s passage is on, not the section’s first', async () => {
    const base = stubBackend();
    const [hit] = await base.search({ query: '2.3', limit: 1, documents: [], chunk_types: [], section: null });
    // A passage of chapter 2 (pages 2–5) printed on page 4.
    const search = vi.fn(async () => [{ ...hit, section_id: 'sec_2', pages: { start: 4, end: 4 } }]);
    const pageImage = vi.fn(base.pageImage.bind(base));
    const { user } = setup({ search, pageImage });
    await searchFor('anything');
    await user.keyboard('{Enter}');
    await expectSection('sec_2');
    await user.click(screen.getByTestId('open-original'));
    expect(await screen.findByTestId('page-image')).toBeInTheDocument();
    expect(screen.getByTestId('page-number')).toHaveTextContent('Page 4 of 5');
    expect(pageImage).toHaveBeenCalledWith('1', 4, hit.chunk_id, null);
  });

  it('shows the path and text for originals that are not PDFs', async () => {
    const pageImage = vi.fn(stubBackend().pageImage);
    const { user } = setup({ pageImage });
    await searchFor('controlled function');
    await user.click(screen.getAllByTestId('hit-crumb').find((c) => c.textContent === '1 Defined terms')!);
    await expectSection('sec_1');
    await user.click(screen.getByTestId('open-original'));
    const dialog = screen.getByTestId('original-dialog');
    expect(dialog).toHaveTextContent('/Users/analyst/Rulebooks/GLO Glossary.md');
    expect(dialog).toHaveTextContent('“Controlled Function” means a function');
    expect(screen.queryByTestId('page-image')).toBeNull();
    expect(pageImage).not.toHaveBeenCalled();
  });

  it('shows a backend error message when a section cannot be shown', async () => {
    const { user } = setup({
      show: async () => {
        throw { code: 'not_found', message: 'No section "sec_2_1_2" in GEN.' };
      },
    });
    await searchFor('2.1.2');
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('No section "sec_2_1_2" in GEN.');
  });
});
