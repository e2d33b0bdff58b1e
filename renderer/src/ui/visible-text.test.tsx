// @vitest-environment happy-dom
// Every code point of the classes issue 22 names (generated from the Unicode data) is marked on screen:
// by segmentText, and as a mark in the rendered VisibleText. The exceptions are the documented ones:
// U+0020 is the space, and a single \n is a line break (the text lays out as it reads).
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { hex, namedInvisibleCodePoints } from '../../../test/helpers/unicode-invisible';
import { segmentText } from '../lib/visible-text';
import { VisibleText } from './VisibleText';

afterEach(cleanup);

const MARKED = namedInvisibleCodePoints().filter((cp) => cp !== 0x20 && cp !== 0x0a);
const NAMED = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Bidi_Control}]/u;
const titleOf = (cp: number) => (cp === 0x09 ? 'tab' : new RegExp(`^${hex(cp).replace('+', '\\+')}: `));

describe('segmentText', () => {
  it('marks each one between letters, and leaves no raw one in the plain text', () => {
    const unmarked = MARKED.filter((cp) => {
      const segments = segmentText(`a${String.fromCodePoint(cp)}b`);
      const marks = segments.filter((s) => s.kind === 'mark');
      const plain = segments
        .filter((s) => s.kind === 'text')
        .map((s) => s.text)
        .join('');
      return marks.length !== 1 || plain !== 'ab';
    });
    expect(unmarked.map(hex)).toEqual([]);
  });

  it('the three that hid text on the card: soft hyphen, combining grapheme joiner, Hangul filler', () => {
    expect(segmentText('pass\u00adwo\u034frd\u3164x')).toEqual([
      { kind: 'text', text: 'pass' },
      { kind: 'mark', cls: 'ctl', text: '\\u00ad', title: 'U+00AD: invisible or control character' },
      { kind: 'text', text: 'wo' },
      { kind: 'mark', cls: 'ctl', text: '\\u034f', title: 'U+034F: invisible or control character' },
      { kind: 'text', text: 'rd' },
      { kind: 'mark', cls: 'ctl', text: '\\u3164', title: 'U+3164: invisible or control character' },
      { kind: 'text', text: 'x' },
    ]);
  });

  it('lets an emoji keep its presentation selector, and marks a selector anywhere else', () => {
    expect(segmentText('ok ❤\ufe0f')).toEqual([{ kind: 'text', text: 'ok ❤\ufe0f' }]);
    expect(segmentText('a\ufe0f').map((s) => s.kind)).toEqual(['text', 'mark']);
  });
});

describe('VisibleText', () => {
  it('renders each one as a mark with its code point, in order, and nothing raw outside the marks', () => {
    const text = MARKED.map((cp) => `a${String.fromCodePoint(cp)}`).join('') + 'a';
    const { container } = render(<VisibleText text={text} />);
    const marks = [...container.querySelectorAll('.mark-ctl, .mark-ws')];
    expect(marks).toHaveLength(MARKED.length);
    marks.forEach((m, i) => expect(m.getAttribute('title'), hex(MARKED[i]!)).toMatch(titleOf(MARKED[i]!)));
    // Outside the marks only the letters are left.
    const clone = container.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('.mark-ctl, .mark-ws').forEach((m) => m.remove());
    expect(clone.textContent).toBe('a'.repeat(MARKED.length + 1));
    // Inside them, only the tab's own arrow-and-tab is a raw character of these classes.
    const rawInMarks = marks.filter((m) => NAMED.test((m.textContent ?? '').replace(/ /g, '')) && m.getAttribute('title') !== 'tab');
    expect(rawInMarks.map((m) => m.getAttribute('title'))).toEqual([]);
  });
});
