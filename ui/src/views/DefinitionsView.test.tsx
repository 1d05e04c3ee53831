import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp, stubBackend } from '../test/helpers';

describe('definitions', () => {
  it('lists every definition with document and scope, filters, and opens one in the reader', async () => {
    const { user } = renderApp(stubBackend(), { view: 'definitions' });
    const items = await screen.findAllByTestId('glossary-item');
    expect(items.map((i) => i.querySelector('.glossary-term')?.textContent)).toEqual([
      'Approved Individual',
      'Authorised Person',
      'Controlled Function',
      'Regulated Activity',
      'Regulator',
      'Senior Management',
    ]);
    const senior = items[5];
    await waitFor(() => expect(senior).toHaveTextContent('GEN 2.1 Principles for Authorised Persons · within 2 Core Principles'));
    expect(items[1]).toHaveTextContent('whole document');

    await user.type(screen.getByTestId('glossary-filter'), 'licence');
    expect(screen.getAllByTestId('glossary-item').map((i) => i.dataset.key)).toEqual(['authorised_person']);

    await user.click(screen.getByTestId('glossary-item'));
    await waitFor(() => expect(screen.getByTestId('reader-heading')).toHaveAttribute('data-section-id', 's_1_1_2'));
  });
});
