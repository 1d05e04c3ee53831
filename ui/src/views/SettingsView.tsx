import { useEffect, useRef, useState, type FormEvent } from 'react';
import { AboutPanel } from './AboutPanel';
import { DiagnosticsPanel } from './DiagnosticsPanel';
import { useBackend, writeClipboard } from '../backend';
import { toBackendError } from '../backend/errors';
import {
  CONTEXT_PROVIDER_LABELS,
  CONTEXT_PROVIDERS,
  FUSION_DEFAULT_WEIGHTS,
  FUSION_LABELS,
  isContextProvider,
  isEmbeddingModel,
  isFusionMethod,
} from '../backend/providers';
import type { BackendError, ContextProvider, KeyStatus, Settings, SettingsChange, TeamLibrarySettings } from '../backend/types';
import { ErrorNote } from '../components/ErrorNote';
import { useIngest } from '../state/ingest';
import { useNav } from '../state/nav';
import { useQuery } from '../state/query';

const PROVIDERS: { id: string; name: string; env: string }[] = [
  { id: 'anthropic', name: 'Anthropic', env: 'ANTHROPIC_API_KEY' },
  { id: 'openai', name: 'OpenAI-compatible', env: 'OPENAI_API_KEY' },
];

/** What each weight changes, in plain words. */
const WEIGHT_HINTS: Record<keyof Settings['weights'], string> = {
  dense: 'How much a passage that means the same, in other words, counts.',
  keyword: 'How much a passage with the same words counts.',
  exact: 'How much an exact rule number or defined term counts.',
};

/** What each context provider does when documents are added, in plain words. */
const CONTEXT_PROVIDER_HINTS: Record<ContextProvider, string> = {
  none: 'Passages are searched as they are, without a note of where they stand.',
  structural: 'Each passage is noted with the headings it stands under; offline, no key needed.',
  anthropic: "Anthropic's model writes a note on where each passage stands; needs an API key, and costs per document.",
  openai: 'A model behind an OpenAI-compatible server (a local one, say) writes a note on where each passage stands.',
};

export function keyStatusText(s: KeyStatus): string {
  if (s.set && s.source === 'keychain') return 'set (keychain)';
  if (s.set && s.source === 'environment') return 'set (environment)';
  return 'not set';
}

export function SettingsView() {
  const backend = useBackend();
  const nav = useNav();
  const ingest = useIngest();
  // The form edits the loaded settings in place (`set`); saving replaces them with what was saved.
  const loaded = useQuery(() => backend.getSettings(), [backend], { library: false });
  const settings = loaded.data ?? null;
  const setSettings = loaded.set;
  /** Why saving or re-indexing failed (dismissable); a failed load is `loaded.error`. */
  const [error, setError] = useState<BackendError | null>(null);
  const [saving, setSaving] = useState(false);
  const [change, setChange] = useState<SettingsChange | null>(null);
  const [reindexStarted, setReindexStarted] = useState(false);
  const noticeRef = useRef<HTMLDivElement>(null);
  // The team library as last loaded or saved (edits change the loaded settings in place).
  const initialTeam = useRef<{ team: TeamLibrarySettings | null } | null>(null);
  if (loaded.data && initialTeam.current === null) initialTeam.current = { team: loaded.data.team_library };

  useEffect(() => {
    if (change?.needs_reindex) noticeRef.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [change]);

  // Edits change loaded settings only: the form is not shown before they are.
  const edit = (change: (s: Settings) => Settings) => setSettings((s) => change(s!));
  const update = <K extends keyof Settings>(key: K, value: Settings[K]) => {
    edit((s) => ({ ...s, [key]: value }));
    setChange(null);
  };
  const weight = (key: keyof Settings['weights'], value: number) => {
    edit((s) => ({ ...s, weights: { ...s.weights, [key]: value } }));
    setChange(null);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!settings) return;
    setSaving(true);
    setError(null);
    try {
      const result = await backend.saveSettings(settings);
      initialTeam.current = { team: result.settings.team_library };
      setSettings(result.settings);
      setChange(result);
      setReindexStarted(false);
    } catch (err) {
      setError(toBackendError(err));
    } finally {
      setSaving(false);
    }
  };

  const reindexAll = async () => {
    try {
      const docs = await backend.libraryDocuments();
      ingest.reindex(docs.map((d) => String(d.document.id)));
      setReindexStarted(true);
    } catch (err) {
      setError(toBackendError(err));
    }
  };

  const keyProvider = PROVIDERS.find((p) => p.id === settings?.context_provider) ?? null;
  /** The team library as last saved: its password is filed under that address. */
  const savedTeam = initialTeam.current?.team ?? null;

  return (
    <div className="view settings-view">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      <ErrorNote error={loaded.error} />
      <ErrorNote error={error} onDismiss={() => setError(null)} />
      {settings && (
        <form className="settings-form" onSubmit={(e) => void save(e)} data-testid="settings-form">
          <fieldset>
            <legend>Search</legend>
            <label className="field">
              <span>Embedding model</span>
              <select
                data-testid="setting-model"
                value={settings.model}
                onChange={(e) => {
                  const v = e.target.value;
                  if (isEmbeddingModel(v)) update('model', v);
                }}
              >
                <option value="minilm">all-MiniLM-L6-v2 (better)</option>
                <option value="fast">Fast static model (smaller, quicker)</option>
              </select>
            </label>
          </fieldset>
          <fieldset>
            <legend>Documents</legend>
            <label className="field field-check">
              <input type="checkbox" data-testid="setting-ocr" checked={settings.ocr} onChange={(e) => update('ocr', e.target.checked)} />
              <span>Read scanned pages with OCR (pages of a PDF without a text layer; about a second a page)</span>
            </label>
          </fieldset>
          <fieldset>
            <legend>Context</legend>
            <label className="field">
              <span>Context provider</span>
              <select
                data-testid="setting-context-provider"
                value={settings.context_provider}
                onChange={(e) => {
                  const v = e.target.value;
                  if (isContextProvider(v)) update('context_provider', v);
                }}
              >
                {CONTEXT_PROVIDERS.map((p) => (
                  <option key={p} value={p}>
                    {CONTEXT_PROVIDER_LABELS[p]}
                  </option>
                ))}
              </select>
            </label>
            <small className="field-hint" data-testid="context-provider-hint">
              {CONTEXT_PROVIDER_HINTS[settings.context_provider]}
            </small>
            {/* Each provider's own fields, shown only while it writes the context. */}
            {settings.context_provider === 'anthropic' && (
              <label className="field">
                <span>Anthropic model</span>
                <input type="text" data-testid="setting-anthropic-model" value={settings.anthropic_model} onChange={(e) => update('anthropic_model', e.target.value)} />
              </label>
            )}
            {settings.context_provider === 'openai' && (
              <>
                <label className="field">
                  <span>OpenAI-compatible base URL</span>
                  <input type="url" data-testid="setting-openai-base-url" value={settings.openai_base_url} onChange={(e) => update('openai_base_url', e.target.value)} />
                </label>
                <label className="field">
                  <span>OpenAI-compatible model</span>
                  <input type="text" data-testid="setting-openai-model" value={settings.openai_model} onChange={(e) => update('openai_model', e.target.value)} />
                </label>
              </>
            )}
          </fieldset>
          <fieldset>
            <legend>Library</legend>
            <div className="radio-row" role="radiogroup" aria-label="Where the library is">
              <label>
                <input
                  type="radio"
                  name="library-kind"
                  data-testid="setting-library-local"
                  checked={!settings.team_library}
                  onChange={() => update('team_library', null)}
                />
                <span>On this computer</span>
              </label>
              <label>
                <input
                  type="radio"
                  name="library-kind"
                  data-testid="setting-library-team"
                  checked={!!settings.team_library}
                  onChange={() => update('team_library', settings.team_library ?? NEW_TEAM_LIBRARY)}
                />
                <span>Team library (PostgreSQL)</span>
              </label>
            </div>
            {settings.team_library ? (
              <TeamLibraryFields team={settings.team_library} onChange={(t) => update('team_library', t)} />
            ) : (
              <label className="field">
                <span>Library folder</span>
                <input type="text" data-testid="setting-library-dir" value={settings.library_dir} onChange={(e) => update('library_dir', e.target.value)} />
              </label>
            )}
          </fieldset>
          <AssistantFields allowed={settings.assistants} onChange={(on) => update('assistants', on)} />
          <details className="settings-advanced" data-testid="settings-advanced">
            <summary data-testid="settings-advanced-toggle">Advanced</summary>
            <p className="muted">How search ranks what it finds. The defaults suit most libraries; change them to tune the ranking.</p>
            <label className="field">
              <span>Fusion of the channels</span>
              <select
                data-testid="setting-fusion"
                value={settings.fusion}
                onChange={(e) => {
                  const v = e.target.value;
                  // Each fusion has its own scale of weights: switching takes its defaults.
                  if (isFusionMethod(v)) edit((s) => ({ ...s, fusion: v, weights: { ...FUSION_DEFAULT_WEIGHTS[v] } }));
                  setChange(null);
                }}
              >
                {(Object.keys(FUSION_LABELS) as (keyof typeof FUSION_LABELS)[]).map((m) => (
                  <option key={m} value={m}>
                    {FUSION_LABELS[m]}
                  </option>
                ))}
              </select>
              <small className="field-hint">How the matches by meaning, by words and by exact number or term are combined into one list.</small>
            </label>
            {settings.fusion === 'rrf' && (
              <label className="field">
                <span>RRF k</span>
                <input type="number" min={1} step={1} data-testid="setting-rrf-k" value={settings.rrf_k} onChange={(e) => update('rrf_k', Number(e.target.value))} />
                <small className="field-hint">How far the first few results of each kind lead the rest: smaller favours the top results more.</small>
              </label>
            )}
            <div className="field-row">
              {(['dense', 'keyword', 'exact'] as const).map((w) => (
                <label className="field" key={w}>
                  <span>{w[0].toUpperCase() + w.slice(1)} weight</span>
                  <input type="number" min={0} step={0.05} data-testid={`setting-weight-${w}`} value={settings.weights[w]} onChange={(e) => weight(w, Number(e.target.value))} />
                  <small className="field-hint">{WEIGHT_HINTS[w]}</small>
                </label>
              ))}
            </div>
          </details>
          <div className="form-actions">
            <button type="submit" className="button primary" data-testid="save-settings" disabled={saving}>
              {saving ? 'Saving…' : 'Save'}
            </button>
            {change && !change.needs_reindex && (
              <span className="muted" role="status">
                Saved.
              </span>
            )}
          </div>
          {change?.needs_reindex && (
            <div className="notice" role="status" data-testid="needs-reindex" ref={noticeRef}>
              <p>Saved. {change.reason ?? 'The library must be re-indexed for this change to take effect.'}</p>
              <button type="button" className="button" data-testid="reindex-library" disabled={ingest.state.running} onClick={() => void reindexAll()}>
                Re-index library
              </button>
              {reindexStarted && (
                <button type="button" className="link-button" onClick={() => nav.setView('library')}>
                  {ingest.state.running ? 'Re-indexing… show progress' : 'Re-index finished; show the library'}
                </button>
              )}
            </div>
          )}
        </form>
      )}

      {/* The team library's password, once its address is saved (it is filed under the address). */}
      {savedTeam && !saving && (
        <section className="keys" aria-label="Team library password">
          <h2>Team library password</h2>
          <p className="muted">The password of {savedTeam.user} is stored in the system keychain, never in the settings or the log.</p>
          <KeyField key={`postgres:${savedTeam.user}@${savedTeam.host}/${savedTeam.database}`} provider="postgres" name="Team library" label="password" env="PGPASSWORD" />
        </section>
      )}

      {/* A key only for the provider writing the context: none offline (Structural) or without one. */}
      {keyProvider && (
        <section className="keys" aria-label="API key">
          <h2>API key</h2>
          <p className="muted">Keys are stored in the system keychain and never shown again.</p>
          <KeyField key={keyProvider.id} provider={keyProvider.id} name={keyProvider.name} env={keyProvider.env} />
        </section>
      )}

      <AboutPanel />
      <DiagnosticsPanel />
    </div>
  );
}

/** A new team library's fields, as the user starts filling them in. */
const NEW_TEAM_LIBRARY: TeamLibrarySettings = { host: '', port: 5432, database: 'folio', user: '', tls: 'verify-full', root_cert: '', keywords: 'cache' };

const TLS_MODES: { id: string; label: string }[] = [
  { id: 'verify-full', label: 'Verify the server (recommended)' },
  { id: 'verify-ca', label: 'Verify the authority only' },
  { id: 'require', label: 'Encrypt, do not verify' },
  { id: 'prefer', label: 'Encrypt when offered' },
  { id: 'disable', label: 'No encryption' },
];

/** Where the team library is: its server, database, user and how the connection is secured. */
function TeamLibraryFields({ team, onChange }: { team: TeamLibrarySettings; onChange: (t: TeamLibrarySettings) => void }) {
  const set = <K extends keyof TeamLibrarySettings>(key: K, value: TeamLibrarySettings[K]) => onChange({ ...team, [key]: value });
  const verifies = team.tls === 'verify-full' || team.tls === 'verify-ca';
  return (
    <div className="team-library" data-testid="team-library">
      <label className="field">
        <span>Host</span>
        <input type="text" data-testid="setting-team-host" placeholder="db.example.org, or primary:5432,replica:5432" value={team.host} onChange={(e) => set('host', e.target.value)} />
      </label>
      <label className="field">
        <span>Port</span>
        <input type="number" min={1} max={65535} data-testid="setting-team-port" value={team.port} onChange={(e) => set('port', Number(e.target.value) || 5432)} />
      </label>
      <label className="field">
        <span>Database</span>
        <input type="text" data-testid="setting-team-database" value={team.database} onChange={(e) => set('database', e.target.value)} />
      </label>
      <label className="field">
        <span>User</span>
        <input type="text" data-testid="setting-team-user" value={team.user} onChange={(e) => set('user', e.target.value)} />
      </label>
      <label className="field">
        <span>Connection security</span>
        <select data-testid="setting-team-tls" value={team.tls} onChange={(e) => set('tls', e.target.value)}>
          {TLS_MODES.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      {verifies && (
        <label className="field">
          <span>Certificate authority file</span>
          <input type="text" data-testid="setting-team-root-cert" placeholder="the system's authorities when empty" value={team.root_cert} onChange={(e) => set('root_cert', e.target.value)} />
        </label>
      )}
      <label className="field">
        <span>Keyword search</span>
        <select data-testid="setting-team-keywords" value={team.keywords} onChange={(e) => set('keywords', e.target.value as TeamLibrarySettings['keywords'])}>
          <option value="cache">On this computer (Folio's ranking; builds a local index first)</option>
          <option value="server">On the server (PostgreSQL full-text: nothing to build, but finds fewer answers)</option>
        </select>
      </label>
      <p className="muted">Save, then give the password below: it goes to the system keychain.</p>
    </div>
  );
}

function KeyField({ provider, name, env, label = 'API key' }: { provider: string; name: string; env: string; label?: string }) {
  const backend = useBackend();
  const key = useQuery(() => backend.keyStatus(provider), [backend, provider], { library: false });
  const status = key.data ?? null;
  const [value, setValue] = useState('');
  /** Why saving or removing the key failed; a failed status read is `key.error`. */
  const [error, setError] = useState<BackendError | null>(null);
  const [busy, setBusy] = useState(false);

  const act = async (fn: () => Promise<KeyStatus>) => {
    setBusy(true);
    setError(null);
    try {
      key.set(await fn());
      setValue('');
    } catch (e) {
      setError(toBackendError(e));
    } finally {
      setBusy(false);
    }
  };

  const noKeychain = status !== null && !status.keychain_available;
  return (
    <div className="key-field" data-testid={`key-${provider}`}>
      <label className="field">
        <span>
          {name} {label}
        </span>
        <input
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder={noKeychain ? `Set ${env} instead` : `Paste the ${label}`}
          value={value}
          disabled={noKeychain}
          onChange={(e) => setValue(e.target.value)}
          data-testid={`key-input-${provider}`}
        />
      </label>
      <div className="key-actions">
        <button type="button" className="button small" disabled={busy || noKeychain || !value.trim()} onClick={() => void act(() => backend.setKey(provider, value))} data-testid={`key-save-${provider}`}>
          Save to keychain
        </button>
        <button
          type="button"
          className="button small"
          disabled={busy || !status || status.source !== 'keychain'}
          onClick={() => void act(() => backend.removeKey(provider))}
          data-testid={`key-remove-${provider}`}
        >
          Remove
        </button>
        <span className="key-status" data-testid={`key-status-${provider}`}>
          {status ? keyStatusText(status) : '…'}
        </span>
      </div>
      {status && (
        <p className="muted key-keychain" data-testid={`key-keychain-${provider}`}>
          {noKeychain ? `No system keychain; using the environment variable (${env}). ` : ''}
          Keychain: {status.keychain || 'unknown'}
        </p>
      )}
      <ErrorNote error={error ?? key.error} />
    </div>
  );
}

/**
 * AI assistants: the switch that lets them read the library (saved with the other settings) and
 * the configuration entry to paste into the assistant, with a button that copies it.
 */
function AssistantFields({ allowed, onChange }: { allowed: boolean; onChange: (on: boolean) => void }) {
  const backend = useBackend();
  const snippet = useQuery(() => backend.assistantSnippet(), [backend], { library: false });
  const [copied, setCopied] = useState(false);
  const copy = async (text: string) => {
    try {
      await writeClipboard(text);
      setCopied(true);
    } catch {
      // Neither clipboard route worked: the text is there to select by hand.
      setCopied(false);
    }
  };
  return (
    <fieldset data-testid="settings-assistants">
      <legend>AI assistants</legend>
      <label className="field field-check">
        <input type="checkbox" data-testid="setting-assistants" checked={allowed} onChange={(e) => onChange(e.target.checked)} />
        <span>Let AI assistants read the library (Model Context Protocol; read-only, on this computer)</span>
      </label>
      <small className="field-hint">
        An assistant such as Claude Desktop starts Folio with the entry below and can then search the library, read sections, look up
        definitions and follow references. Nothing leaves this computer except what the assistant asks for.
      </small>
      <ErrorNote error={snippet.error} />
      {snippet.data && (
        <div className="assistant-snippet">
          <pre data-testid="assistant-snippet">{snippet.data.config}</pre>
          <button type="button" className="button small" data-testid="assistant-snippet-copy" onClick={() => void copy(snippet.data!.config)}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          {!allowed && (
            <small className="field-hint" data-testid="assistant-snippet-off">
              Turn the switch on and save: until then an assistant started with this entry is told that Folio does not allow it.
            </small>
          )}
        </div>
      )}
    </fieldset>
  );
}
