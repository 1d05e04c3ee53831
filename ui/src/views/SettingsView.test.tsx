import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { KeyStatus } from '../backend/types';
import { renderApp, stubBackend } from '../test/helpers';

describe('settings', () => {
  it('saves settings; a change that needs a re-index offers to re-index the library', async () => {
    const base = stubBackend({}, { delayMs: 1 });
    const saveSettings = vi.fn(base.saveSettings.bind(base));
    const reindexDocument = vi.fn(base.reindexDocument.bind(base));
    const { user } = renderApp(Object.assign(base, { saveSettings, reindexDocument }), { view: 'settings' });
    const model = await screen.findByTestId('setting-model');
    expect(model).toHaveValue('minilm');
    await user.selectOptions(model, 'fast');
    const k = screen.getByTestId('setting-rrf-k');
    await user.clear(k);
    await user.type(k, '40');
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenCalledWith(expect.objectContaining({ model: 'fast', rrf_k: 40, weights: { dense: 1, keyword: 1, exact: 2 } }));
    const notice = await screen.findByTestId('needs-reindex');
    expect(notice).toHaveTextContent('The embedding model changed');
    await user.click(within(notice).getByTestId('reindex-library'));
    await waitFor(() => expect(reindexDocument.mock.calls.map((c) => c[0])).toEqual(['1', '2']), { timeout: 3000 });
  });

  it('says Saved when no re-index is needed, and shows errors as messages', async () => {
    let fail = false;
    const base = stubBackend();
    const saveSettings = vi.fn(async (s: Parameters<typeof base.saveSettings>[0]) => {
      if (fail) throw { code: 'invalid_settings', message: 'RRF k must be a positive number.' };
      return { settings: s, needs_reindex: false, reason: null };
    });
    const { user } = renderApp(Object.assign(base, { saveSettings }), { view: 'settings' });
    await user.click(await screen.findByTestId('save-settings'));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(screen.queryByTestId('needs-reindex')).toBeNull();
    fail = true;
    await user.click(screen.getByTestId('save-settings'));
    expect(await screen.findByRole('alert')).toHaveTextContent('RRF k must be a positive number.');
  });

  it('stores API keys in the keychain and shows only their status', async () => {
    const { user } = renderApp(stubBackend(), { view: 'settings' });
    const status = await screen.findByTestId('key-status-anthropic');
    await waitFor(() => expect(status).toHaveTextContent('not set'));
    const input = screen.getByTestId('key-input-anthropic');
    expect(input).toHaveAttribute('type', 'password');
    expect(screen.getByTestId('key-remove-anthropic')).toBeDisabled();
    await user.type(input, 'sk-ant-very-secret');
    await user.click(screen.getByTestId('key-save-anthropic'));
    await waitFor(() => expect(status).toHaveTextContent('set (keychain)'));
    expect(input).toHaveValue('');
    expect(document.body.innerHTML).not.toContain('sk-ant-very-secret');
    await user.click(screen.getByTestId('key-remove-anthropic'));
    await waitFor(() => expect(status).toHaveTextContent('not set'));
  });

  it('reports environment keys and a missing keychain', async () => {
    const keyStatus = async (provider: string): Promise<KeyStatus> =>
      provider === 'openai'
        ? { provider, set: true, source: 'environment', keychain_available: false }
        : { provider, set: false, source: 'none', keychain_available: false };
    renderApp(stubBackend({ keyStatus }), { view: 'settings' });
    await waitFor(() => expect(screen.getByTestId('key-status-openai')).toHaveTextContent('set (environment)'));
    expect(screen.getByTestId('key-remove-openai')).toBeDisabled();
    expect(screen.getByTestId('key-openai')).toHaveTextContent('No system keychain; using the environment variable');
    expect(screen.getByTestId('key-input-anthropic')).toBeDisabled();
  });
});
