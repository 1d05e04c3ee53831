import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../../backend/fake';
import type { MissingDocument } from '../../backend/types';
import { renderApp, stubBackend } from '../../test/helpers';

describe('documents cited but not in the library', () => {
  it('lists what the library cites but lacks, with how often', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const missing = await backend.missingDocuments();
    expect(missing.map((m) => m.name)).toContain('COBS');
    const { user } = renderApp(backend, { view: 'library' });
    const panel = await screen.findByTestId('missing-documents');
    expect(panel).toHaveTextContent('Cited but not in your library');
    await user.click(within(panel).getByTestId('missing-toggle'));
    const row = screen.getAllByTestId('missing-document').find((r) => r.textContent?.startsWith('COBS'))!;
    const cobs = missing.find((m) => m.name === 'COBS')!;
    expect(row).toHaveTextContent(`${cobs.citations} reference`);
  });

  it('sits below the documents, folded to one line, and unfolds in the engine’s order', async () => {
    const cited: MissingDocument[] = [
      { name: 'FSMR', citations: 40, citing_documents: 3 },
      { name: 'COBS', citations: 12, citing_documents: 2 },
      { name: 'AML', citations: 12, citing_documents: 1 },
      { name: 'PRU', citations: 2, citing_documents: 1 },
      { name: 'IFR', citations: 1, citing_documents: 1 },
      { name: 'MIR', citations: 1, citing_documents: 1 },
      { name: 'CIR', citations: 1, citing_documents: 1 },
    ];
    const { user } = renderApp(stubBackend({ missingDocuments: async () => cited }), { view: 'library' });
    const panel = await screen.findByTestId('missing-documents');
    const table = (await screen.findAllByTestId('doc-row'))[0].closest('table')!;
    expect(table.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(within(panel).getByTestId('missing-summary')).toHaveTextContent('Cited but not in your library: 7 instruments — show');
    expect(screen.queryAllByTestId('missing-document')).toHaveLength(0);

    await user.click(within(panel).getByTestId('missing-toggle'));
    expect(within(panel).getByTestId('missing-toggle')).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getAllByTestId('missing-document').map((r) => r.querySelector('strong')?.textContent)).toEqual(cited.map((c) => c.name));
    expect(within(panel).getByTestId('missing-summary')).toHaveTextContent('— hide');
    await user.click(within(panel).getByTestId('missing-toggle'));
    expect(screen.queryAllByTestId('missing-document')).toHaveLength(0);
  });
});
