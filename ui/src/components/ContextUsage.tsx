import { providerName } from '../backend/providers';
import type { ContextRun } from '../backend/types';
import { baseName } from '../text/format';

export type ContextTotals = {
  documents: number;
  hits: number;
  requests: number;
  fallbacks: number;
  /** All input tokens: uncached, written to and read from the prompt cache. */
  tokensIn: number;
  tokensOut: number;
  cacheWrite: number;
  cacheRead: number;
  cost: number;
};

export function contextTotals(runs: ContextRun[]): ContextTotals {
  const t: ContextTotals = { documents: runs.length, hits: 0, requests: 0, fallbacks: 0, tokensIn: 0, tokensOut: 0, cacheWrite: 0, cacheRead: 0, cost: 0 };
  for (const r of runs) {
    t.hits += r.hits;
    t.requests += r.requests;
    t.fallbacks += r.fallbacks;
    t.tokensIn += tokensIn(r);
    t.tokensOut += r.output_tokens;
    t.cacheWrite += r.cache_write_tokens;
    t.cacheRead += r.cache_read_tokens;
    t.cost += r.cost;
  }
  return t;
}

function tokensIn(r: ContextRun): number {
  return r.input_tokens + r.cache_write_tokens + r.cache_read_tokens;
}

const count = (n: number) => n.toLocaleString('en-US');

/** "$0.00", "$0.0042", "$1.27": under a dollar to a hundredth of a cent, as the CLI prints it. */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd) || usd <= 0) return '$0.00';
  if (usd < 0.0001) return '< $0.0001';
  if (usd < 1) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

function tokensTitle(input: number, write: number, read: number): string {
  return `${count(input)} uncached, ${count(write)} written to and ${count(read)} read from the prompt cache`;
}

/** What contextualizing with an LLM used in one ingest: in total, and per document. */
export function ContextUsage({ runs }: { runs: ContextRun[] }) {
  if (runs.length === 0) return null;
  const t = contextTotals(runs);
  const models = [...new Set(runs.map((r) => `${providerName(r.provider)} ${r.model}`))];
  return (
    <div className="context-usage" data-testid="context-usage">
      <p className="context-usage-total" data-testid="context-usage-total">
        <span className="context-usage-label">LLM context ({models.join(', ')}):</span> {plural(t.hits, 'cache hit')} · {plural(t.requests, 'request')} ·{' '}
        {plural(t.fallbacks, 'fallback')} ·{' '}
        <span title={tokensTitle(t.tokensIn - t.cacheWrite - t.cacheRead, t.cacheWrite, t.cacheRead)}>
          {count(t.tokensIn)} tokens in / {count(t.tokensOut)} out
        </span>{' '}
        · cost {formatUsd(t.cost)}
      </p>
      {t.fallbacks > 0 && (
        <p className="context-usage-fallbacks" role="note" data-testid="context-fallbacks">
          {t.fallbacks === 1 ? '1 chunk' : `${count(t.fallbacks)} chunks`} could not be contextualized by the LLM (the request failed):{' '}
          {t.fallbacks === 1 ? 'it keeps' : 'they keep'} the structural context and will be retried on the next ingest.
        </p>
      )}
      <details className="context-usage-details" data-testid="context-usage-details">
        <summary>Per document ({plural(t.documents, 'document')})</summary>
        <div className="context-table-wrap">
          <table className="context-table">
            <thead>
              <tr>
                <th scope="col">Document</th>
                <th scope="col">Model</th>
                <th scope="col" className="num">
                  Cache hits
                </th>
                <th scope="col" className="num">
                  Requests
                </th>
                <th scope="col" className="num">
                  Fallbacks
                </th>
                <th scope="col" className="num">
                  Tokens in
                </th>
                <th scope="col" className="num">
                  Tokens out
                </th>
                <th scope="col" className="num">
                  Cost (USD)
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.map((r, i) => (
                <tr key={`${r.path}:${i}`} data-testid="context-run" data-path={r.path}>
                  <td title={r.path}>{baseName(r.path)}</td>
                  <td>
                    {providerName(r.provider)} {r.model}
                  </td>
                  <td className="num">{count(r.hits)}</td>
                  <td className="num">{count(r.requests)}</td>
                  <td className={`num${r.fallbacks > 0 ? ' error-text' : ''}`}>{count(r.fallbacks)}</td>
                  <td className="num" title={tokensTitle(r.input_tokens, r.cache_write_tokens, r.cache_read_tokens)}>
                    {count(tokensIn(r))}
                  </td>
                  <td className="num">{count(r.output_tokens)}</td>
                  <td className="num">{formatUsd(r.cost)}</td>
                </tr>
              ))}
            </tbody>
            {runs.length > 1 && (
              <tfoot>
                <tr data-testid="context-run-total">
                  <th scope="row" colSpan={2}>
                    Total
                  </th>
                  <td className="num">{count(t.hits)}</td>
                  <td className="num">{count(t.requests)}</td>
                  <td className="num">{count(t.fallbacks)}</td>
                  <td className="num">{count(t.tokensIn)}</td>
                  <td className="num">{count(t.tokensOut)}</td>
                  <td className="num">{formatUsd(t.cost)}</td>
                </tr>
              </tfoot>
            )}
          </table>
        </div>
      </details>
    </div>
  );
}
