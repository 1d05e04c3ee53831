import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Snippet, parseSnippet } from './Snippet';

describe('parseSnippet', () => {
  it('splits [[marked]] terms from plain text', () => {
    expect(parseSnippet('An [[Authorised Person]] must keep [[records]].')).toEqual([
      { text: 'An ', mark: false },
      { text: 'Authorised Person', mark: true },
      { text: ' must keep ', mark: false },
      { text: 'records', mark: true },
      { text: '.', mark: false },
    ]);
  });

  it('keeps unterminated or empty markers as text', () => {
    expect(parseSnippet('a [[b')).toEqual([{ text: 'a [[b', mark: false }]);
    expect(parseSnippet('[[]]x')).toEqual([{ text: 'x', mark: false }]);
    expect(parseSnippet('')).toEqual([]);
  });
});

describe('<Snippet>', () => {
  it('renders matched terms as <mark> elements', () => {
    const { container } = render(<Snippet text="keep [[records]] of GEN [[2.1.3]]" />);
    const marks = container.querySelectorAll('mark');
    expect(Array.from(marks).map((m) => m.textContent)).toEqual(['records', '2.1.3']);
    expect(container.textContent).toBe('keep records of GEN 2.1.3');
  });

  it('renders HTML in a snippet as text, never as markup', () => {
    const evil = '<img src=x onerror="window.__pwned = 1"> [[term]] <b>bold</b>';
    const { container } = render(<Snippet text={evil} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror="window.__pwned = 1">');
    expect(container.querySelector('mark')?.textContent).toBe('term');
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('does not let a marked term inject markup either', () => {
    const { container } = render(<Snippet text="[[<script>alert(1)</script>]]" />);
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('mark')?.textContent).toBe('<script>alert(1)</script>');
  });
});
