import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ContextRun } from '../backend/types';
import { ContextUsage, contextTotals, formatUsd } from './ContextUsage';

function run(path: string, extra: Partial<ContextRun> = {}): ContextRun {
  return {
    path,
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    requests: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_write_tokens: 0,
    cache_read_tokens: 0,
    hits: 0,
    misses: 0,
    fallbacks: 0,
    excerpted: 0,
    cost: 0,
    ...extra,
  };
}

const RUNS: ContextRun[] = [
  run('/docs/GEN General Rulebook.pdf', {
    requests: 10,
    misses: 12,
    hits: 3,
    fallbacks: 2,
    input_tokens: 1_500,
    output_tokens: 620,
    cache_write_tokens: 2_400,
    cache_read_tokens: 21_600,
    cost: 0.01064,
  }),
  run('/docs/GLO Glossary.md', { hits: 7, cost: 0 }),
];

describe('ContextUsage', () => {
  it('renders nothing without LLM runs', () => {
    const { container } = render(<ContextUsage runs={[]} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('sums cache hits, requests, fallbacks, tokens and cost over the documents', () => {
    render(<ContextUsage runs={RUNS} />);
    expect(screen.getByTestId('context-usage-total')).toHaveTextContent(
      'LLM context (Anthropic claude-haiku-4-5): 10 cache hits · 10 requests · 2 fallbacks · 25,500 tokens in / 620 out · cost $0.0106',
    );
    expect(contextTotals(RUNS)).toMatchObject({ hits: 10, requests: 10, fallbacks: 2, tokensIn: 25_500, tokensOut: 620, cacheWrite: 2_400, cacheRead: 21_600 });
  });

  it('says that fallback chunks kept the structural context and will be retried', () => {
    render(<ContextUsage runs={RUNS} />);
    expect(screen.getByTestId('context-fallbacks')).toHaveTextContent(
      '2 chunks could not be contextualized by the LLM (the request failed): they keep the structural context and will be retried on the next ingest.',
    );
  });

  it('has no fallback note when every request succeeded', () => {
    render(<ContextUsage runs={[run('/a.pdf', { requests: 4, misses: 4, input_tokens: 400, output_tokens: 200, cost: 0.0014 })]} />);
    expect(screen.getByTestId('context-usage-total')).toHaveTextContent('0 cache hits · 4 requests · 0 fallbacks · 400 tokens in / 200 out · cost $0.0014');
    expect(screen.queryByTestId('context-fallbacks')).toBeNull();
    // One document: no total row.
    expect(screen.queryByTestId('context-run-total')).toBeNull();
  });

  it('lists each document in a details element, with a total row', async () => {
    const user = userEvent.setup();
    render(<ContextUsage runs={RUNS} />);
    const details = screen.getByTestId('context-usage-details');
    expect(details.tagName).toBe('DETAILS');
    expect(details).not.toHaveAttribute('open');
    await user.click(within(details).getByText('Per document (2 documents)'));
    expect(details).toHaveAttribute('open');
    const rows = within(details).getAllByTestId('context-run');
    const cells = (tr: HTMLElement) => within(tr).getAllByRole('cell').map((c) => c.textContent);
    expect(rows.map((r) => r.dataset.path)).toEqual(['/docs/GEN General Rulebook.pdf', '/docs/GLO Glossary.md']);
    expect(cells(rows[0])).toEqual(['GEN General Rulebook.pdf', 'Anthropic claude-haiku-4-5', '3', '10', '2', '25,500', '620', '$0.0106']);
    expect(cells(rows[1])).toEqual(['GLO Glossary.md', 'Anthropic claude-haiku-4-5', '7', '0', '0', '0', '0', '$0.00']);
    expect(cells(within(details).getByTestId('context-run-total'))).toEqual(['10', '10', '2', '25,500', '620', '$0.0106']);
  });

  it('names unknown providers as the engine does, and mixed models together', () => {
    render(<ContextUsage runs={[run('/a.md', { provider: 'openai', model: 'llama3.1' }), run('/b.md', { provider: 'mistral', model: 'small' })]} />);
    expect(screen.getByTestId('context-usage-total')).toHaveTextContent('LLM context (OpenAI-compatible llama3.1, mistral small):');
  });

  it('formats US dollars', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.00004)).toBe('< $0.0001');
    expect(formatUsd(0.000123)).toBe('$0.0001');
    expect(formatUsd(0.0042)).toBe('$0.0042');
    expect(formatUsd(0.01064)).toBe('$0.0106');
    expect(formatUsd(1.266)).toBe('$1.27');
  });
});
