import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../backend/fake';
import { renderApp } from '../test/helpers';

describe('about', () => {
  it('shows the version and each shipped part with its licence', async () => {
    const backend = new FakeBackend({ delayMs: 1 });
    const { user } = renderApp(backend, { view: 'settings' });
    const about = await screen.findByTestId('about');
    expect(within(about).getByTestId('about-version')).toHaveTextContent('Folio 0.1.0');
    const parts = within(about).getAllByTestId('about-component');
    expect(parts.map((p) => p.dataset.name)).toEqual(['all-MiniLM-L6-v2', 'potion-base-2M', 'PDFium']);
    await user.click(within(parts[0]).getByText('Licence text'));
    expect(within(parts[0]).getByTestId('licence-text')).toHaveTextContent('Apache License');
    expect(parts[2]).toHaveTextContent('its licence file is not installed');
  });
});
