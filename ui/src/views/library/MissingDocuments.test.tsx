import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../../backend/fake';
import { renderApp } from '../../test/helpers';

describe('documents cited but not in the library', () => {
  it('lists what the library cites but lacks, with how often', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const missing = await backend.missingDocuments();
    expect(missing.map((m) => m.name)).toContain('COBS');
    renderApp(backend, { view: 'library' });
    const panel = await screen.findByTestId('missing-documents');
    expect(panel).toHaveTextContent('Cited but not in your library');
    const row = screen.getAllByTestId('missing-document').find((r) => r.textContent?.startsWith('COBS'))!;
    const cobs = missing.find((m) => m.name === 'COBS')!;
    expect(row).toHaveTextContent(`${cobs.citations} reference`);
  });
});
