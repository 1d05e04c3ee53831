import { Fragment } from 'react';

export type SnippetPart = { text: string; mark: boolean };

/**
 * Splits a backend snippet into plain and marked parts: `[[term]]` marks a matched term.
 * An unterminated `[[` is kept as text.
 */
export function parseSnippet(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  const push = (text: string, mark: boolean) => {
    if (!text) return;
    const last = parts[parts.length - 1];
    if (last && last.mark === mark && !mark) last.text += text;
    else parts.push({ text, mark });
  };
  let i = 0;
  while (i < snippet.length) {
    const open = snippet.indexOf('[[', i);
    if (open === -1) break;
    const close = snippet.indexOf(']]', open + 2);
    if (close === -1) break;
    push(snippet.slice(i, open), false);
    push(snippet.slice(open + 2, close), true);
    i = close + 2;
  }
  push(snippet.slice(i), false);
  return parts;
}

/** A snippet rendered as text nodes, matched terms in <mark>. */
export function Snippet({ text, className }: { text: string; className?: string }) {
  return (
    <span className={className}>
      {parseSnippet(text).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : <Fragment key={i}>{p.text}</Fragment>))}
    </span>
  );
}
