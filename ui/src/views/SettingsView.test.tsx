import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { KeyStatus } from '../backend/types';
import { renderApp, stubBackend } from '../test/helpers';

const NO_KEYCHAIN = 'no keychain available (Platform secure storage failure: no kernel keyring); using the environment variable';

describe('settings', () => {
  it('saves settings; a change that needs a re-index offers to re-index the library', async () => {
    const base = stubBackend({}, { delayMs: 1 });
    const saveSettings = vi.fn(base.saveSettings.bind(base));
    const reindexDocument = vi.fn(base.reindexDocument.bind(base));
    const { user } = renderApp(Object.assign(base, { saveSettings, reindexDocument }), { view: 'settings' });
    const model = await screen.findByTestId('setting-model');
    expect(model).toHaveValue('minilm');
    await user.selectOptions(model, 'fast');
    // The ranking's settings are for experts: folded under Advanced until asked for.
    const advanced = screen.getByTestId('settings-advanced');
    expect(advanced).not.toHaveAttribute('open');
    expect(screen.getByTestId('setting-fusion')).not.toBeVisible();
    await user.click(screen.getByTestId('settings-advanced-toggle'));
    expect(advanced).toHaveAttribute('open');
    // Fusion by score has no k; choosing RRF shows it and takes RRF's own default weights.
    const fusion = screen.getByTestId('setting-fusion');
    expect(fusion).toBeVisible();
    expect(fusion).toHaveValue('scores');
    expect(screen.queryByTestId('setting-rrf-k')).toBeNull();
    expect(screen.getByTestId('setting-weight-dense')).toHaveValue(0.75);
    await user.selectOptions(fusion, 'rrf');
    expect(screen.getByTestId('setting-weight-dense')).toHaveValue(0.25);
    const k = screen.getByTestId('setting-rrf-k');
    await user.clear(k);
    await user.type(k, '40');
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenCalledWith(
      expect.objectContaining({ model: 'fast', fusion: 'rrf', rrf_k: 40, weights: { dense: 0.25, keyword: 1, exact: 2 } }),
    );
    const notice = await screen.findByTestId('needs-reindex');
    expect(notice).toHaveTextContent('The embedding model changed');
    await user.click(within(notice).getByTestId('reindex-library'));
    await waitFor(() => expect(reindexDocument.mock.calls.map((c) => c[0])).toEqual(['1', '2']), { timeout: 3000 });
  });

  it('switches to a team library on PostgreSQL, then takes its password into the keychain', async () => {
    const base = stubBackend();
    const saveSettings = vi.fn(async (s: Parameters<typeof base.saveSettings>[0]) => ({ settings: s, needs_reindex: false, reason: null }));
    const setKey = vi.fn(base.setKey.bind(base));
    const { user } = renderApp(Object.assign(base, { saveSettings, setKey }), { view: 'settings' });
    const local = await screen.findByTestId('setting-library-local');
    expect(local).toBeChecked();
    expect(screen.getByTestId('setting-library-dir')).toBeVisible();
    expect(screen.queryByTestId('key-postgres')).toBeNull();
    await user.click(screen.getByTestId('setting-library-team'));
    expect(screen.queryByTestId('setting-library-dir')).toBeNull();
    await user.type(screen.getByTestId('setting-team-host'), 'db1.example.org:5432,db2.example.org:5432');
    await user.type(screen.getByTestId('setting-team-user'), 'analyst');
    expect(screen.getByTestId('setting-team-tls')).toHaveValue('verify-full');
    await user.type(screen.getByTestId('setting-team-root-cert'), '/etc/folio/ca.pem');
    // No password field before the address is saved (the password is filed under it).
    expect(screen.queryByTestId('key-postgres')).toBeNull();
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenCalledWith(
      expect.objectContaining({
        team_library: { host: 'db1.example.org:5432,db2.example.org:5432', port: 5432, database: 'folio', user: 'analyst', tls: 'verify-full', root_cert: '/etc/folio/ca.pem', keywords: 'cache' },
      }),
    );
    const field = await screen.findByTestId('key-postgres');
    expect(field).toHaveTextContent('Team library password');
    await user.type(within(field).getByTestId('key-input-postgres'), 'correct horse');
    await user.click(within(field).getByTestId('key-save-postgres'));
    expect(setKey).toHaveBeenCalledWith('postgres', 'correct horse');
    await waitFor(() => expect(within(field).getByTestId('key-status-postgres')).toHaveTextContent('set (keychain)'));
    expect(within(field).getByTestId('key-input-postgres')).toHaveValue('');
    // Back to this computer: the folder again, and no password field once saved.
    await user.click(screen.getByTestId('setting-library-local'));
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ team_library: null }));
    await waitFor(() => expect(screen.queryByTestId('key-postgres')).toBeNull());
  });

  it('turns OCR of scanned pages off and on', async () => {
    const base = stubBackend();
    const saveSettings = vi.fn(async (s: Parameters<typeof base.saveSettings>[0]) => ({ settings: s, needs_reindex: false, reason: null }));
    const { user } = renderApp(Object.assign(base, { saveSettings }), { view: 'settings' });
    const ocr = await screen.findByTestId('setting-ocr');
    expect(ocr).toBeChecked();
    await user.click(ocr);
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenCalledWith(expect.objectContaining({ ocr: false }));
  });

  it('offers the engine\'s context providers and saves the one chosen', async () => {
    // The engine reads a provider it does not know (a settings file from a later version) as
    // `structural`, so the UI only ever sees the four of the generated `ContextProvider` union.
    const base = stubBackend();
    const settings = await base.getSettings();
    const saveSettings = vi.fn(async (s: Parameters<typeof base.saveSettings>[0]) => ({ settings: s, needs_reindex: false, reason: null }));
    const { user } = renderApp(Object.assign(base, { getSettings: async () => ({ ...settings, context_provider: 'openai' as const }), saveSettings }), { view: 'settings' });
    const select = await screen.findByTestId('setting-context-provider');
    expect(select).toHaveValue('openai');
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'None',
      'Structural (headings, offline)',
      'Anthropic',
      'OpenAI-compatible',
    ]);
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenCalledWith(expect.objectContaining({ context_provider: 'openai' }));
    await user.selectOptions(select, 'anthropic');
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenLastCalledWith(expect.objectContaining({ context_provider: 'anthropic' }));
  });

  it('says Saved when no re-index is needed, and shows errors as messages', async () => {
    let fail = false;
    const base = stubBackend();
    const saveSettings = vi.fn(async (s: Parameters<typeof base.saveSettings>[0]) => {
      if (fail) throw { code: 'invalid', message: 'RRF k must be a positive number.' };
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

  it('says in one plain line what each advanced setting changes', async () => {
    const { user } = renderApp(stubBackend(), { view: 'settings' });
    await user.click(await screen.findByTestId('settings-advanced-toggle'));
    await user.selectOptions(screen.getByTestId('setting-fusion'), 'rrf');
    for (const id of ['setting-fusion', 'setting-rrf-k', 'setting-weight-dense', 'setting-weight-keyword', 'setting-weight-exact']) {
      const hint = screen.getByTestId(id).closest('label')!.querySelector('.field-hint');
      expect(hint?.textContent, id).toMatch(/^[A-Z].{20,}\.$/);
    }
  });

  it('shows a provider’s key and model fields only while that provider writes the context', async () => {
    const { user } = renderApp(stubBackend(), { view: 'settings' });
    const select = await screen.findByTestId('setting-context-provider');
    // Structural (offline), the default: no key, no provider fields.
    expect(select).toHaveValue('structural');
    expect(screen.queryByTestId('key-anthropic')).toBeNull();
    expect(screen.queryByTestId('key-openai')).toBeNull();
    expect(screen.queryByTestId('setting-anthropic-model')).toBeNull();
    expect(screen.getByTestId('context-provider-hint')).toHaveTextContent('no key needed');
    await user.selectOptions(select, 'none');
    expect(screen.queryByTestId('key-anthropic')).toBeNull();
    expect(screen.queryByTestId('key-openai')).toBeNull();

    await user.selectOptions(select, 'anthropic');
    expect(await screen.findByTestId('key-anthropic')).toBeInTheDocument();
    expect(screen.queryByTestId('key-openai')).toBeNull();
    expect(screen.getByTestId('setting-anthropic-model')).toHaveValue('claude-haiku-4-5');
    expect(screen.queryByTestId('setting-openai-base-url')).toBeNull();

    await user.selectOptions(select, 'openai');
    expect(await screen.findByTestId('key-openai')).toBeInTheDocument();
    expect(screen.queryByTestId('key-anthropic')).toBeNull();
    expect(screen.getByTestId('setting-openai-base-url')).toHaveValue('http://localhost:11434/v1');
    expect(screen.queryByTestId('setting-anthropic-model')).toBeNull();
  });

  it('stores API keys in the keychain and shows only their status', async () => {
    const { user } = renderApp(stubBackend(), { view: 'settings' });
    await user.selectOptions(await screen.findByTestId('setting-context-provider'), 'anthropic');
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
    expect(screen.getByTestId('key-keychain-anthropic')).toHaveTextContent('Keychain: macOS Keychain');
  });

  it('says which keychain holds the key, e.g. a session-only kernel keyring', async () => {
    const keychain = 'Linux kernel keyring (no Secret Service running: the key lasts until logout)';
    const keyStatus = async (provider: string): Promise<KeyStatus> => ({ provider, set: provider === 'anthropic', source: provider === 'anthropic' ? 'keychain' : 'none', keychain_available: true, keychain });
    const { user } = renderApp(stubBackend({ keyStatus }), { view: 'settings' });
    await user.selectOptions(await screen.findByTestId('setting-context-provider'), 'anthropic');
    await waitFor(() => expect(screen.getByTestId('key-status-anthropic')).toHaveTextContent('set (keychain)'));
    expect(screen.getByTestId('key-keychain-anthropic')).toHaveTextContent(`Keychain: ${keychain}`);
    expect(screen.getByTestId('key-keychain-anthropic')).not.toHaveTextContent('No system keychain');
    await user.selectOptions(screen.getByTestId('setting-context-provider'), 'openai');
    await waitFor(() => expect(screen.getByTestId('key-keychain-openai')).toHaveTextContent(`Keychain: ${keychain}`));
    expect(screen.getByTestId('key-input-openai')).toBeEnabled();
  });

  it('reports environment keys and a missing keychain', async () => {
    const keyStatus = async (provider: string): Promise<KeyStatus> =>
      provider === 'openai'
        ? { provider, set: true, source: 'environment', keychain_available: false, keychain: NO_KEYCHAIN }
        : { provider, set: false, source: 'none', keychain_available: false, keychain: NO_KEYCHAIN };
    const { user } = renderApp(stubBackend({ keyStatus }), { view: 'settings' });
    await user.selectOptions(await screen.findByTestId('setting-context-provider'), 'openai');
    await waitFor(() => expect(screen.getByTestId('key-status-openai')).toHaveTextContent('set (environment)'));
    expect(screen.getByTestId('key-remove-openai')).toBeDisabled();
    expect(screen.getByTestId('key-openai')).toHaveTextContent('No system keychain; using the environment variable (OPENAI_API_KEY)');
    expect(screen.getByTestId('key-keychain-openai')).toHaveTextContent(`Keychain: ${NO_KEYCHAIN}`);
    await user.selectOptions(screen.getByTestId('setting-context-provider'), 'anthropic');
    await waitFor(() => expect(screen.getByTestId('key-input-anthropic')).toBeDisabled());
  });

  it('shows the AI assistant entry to paste and saves the switch that allows assistants', async () => {
    const base = stubBackend({}, { delayMs: 1 });
    const saveSettings = vi.fn(base.saveSettings.bind(base));
    const { user } = renderApp(Object.assign(base, { saveSettings }), { view: 'settings' });
    const snippet = await screen.findByTestId('assistant-snippet');
    const config = JSON.parse(snippet.textContent ?? '');
    expect(config.mcpServers.folio.args).toEqual(['mcp']);
    expect(config.mcpServers.folio.command).toMatch(/folio-desktop$/);
    // Off until the user turns it on; the entry says what an assistant meets meanwhile.
    const allow = screen.getByTestId('setting-assistants');
    expect(allow).not.toBeChecked();
    expect(screen.getByTestId('assistant-snippet-off')).toBeInTheDocument();
    await user.click(allow);
    expect(screen.queryByTestId('assistant-snippet-off')).toBeNull();
    await user.click(screen.getByTestId('save-settings'));
    expect(saveSettings).toHaveBeenCalledWith(expect.objectContaining({ assistants: true }));
    await user.click(screen.getByTestId('assistant-snippet-copy'));
    expect(await screen.findByText('Copied')).toBeInTheDocument();
  });
});
