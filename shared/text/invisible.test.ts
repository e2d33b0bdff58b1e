// The one invisible set against every code point of the classes issue 22 names (generated from the
// engine's Unicode data, test/helpers/unicode-invisible.ts): escapeControl and terminalJson leave none
// of them raw, and the exceptions are exactly the documented ones.
import { describe, expect, it } from 'vitest';
import { hex, namedInvisibleCodePoints } from '../../test/helpers/unicode-invisible.js';
import { escapeControl, terminalJson } from '../escape.js';
import { isInvisible, isOddSpace, stripInvisible } from './invisible.js';

const ALL = namedInvisibleCodePoints();
const NAMED = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Bidi_Control}]/u;
// The space is the one Zs code point a reader may see raw.
const SPACE = 0x20;

describe('the classes, from the Unicode data', () => {
  it('hold the characters that hid text on the card, and thousands more', () => {
    for (const cp of [0x00ad, 0x034f, 0x3164, 0x115f, 0x1160, 0xffa0, 0x180e, 0x200b, 0x202e, 0x2066, 0x061c, 0xfe0f, 0xe0041, 0x2028, 0x0085, 0x00a0]) {
      expect(ALL, hex(cp)).toContain(cp);
    }
    expect(ALL.length).toBeGreaterThan(4000);
  });

  it('each is invisible or an odd space, and only U+0020 is neither', () => {
    const neither = ALL.filter((cp) => !isInvisible(cp) && !isOddSpace(cp));
    expect(neither.map(hex)).toEqual([hex(SPACE)]);
  });
});

describe('escapeControl', () => {
  it('escapes every one of them but the spaces, alone and between letters', () => {
    const raw = ALL.filter((cp) => cp !== SPACE && !isOddSpace(cp)).filter((cp) => {
      const ch = String.fromCodePoint(cp);
      return escapeControl(ch) === ch || NAMED.test(escapeControl(`a${ch}b`));
    });
    expect(raw.map(hex)).toEqual([]);
  });

  it('keeps \\n and \\t only when asked, and never \\r', () => {
    expect(escapeControl('a\nb\tc\rd', { keepNewlines: true })).toBe('a\nb\tc\\x0dd');
    expect(escapeControl('a\nb\tc')).toBe('a\\x0ab\\x09c');
  });

  it('keeps one presentation selector after an emoji, and marks it anywhere else', () => {
    expect(escapeControl('❤\ufe0f ☺\ufe0e #\ufe0f\u20e3')).toBe('❤\ufe0f ☺\ufe0e #\ufe0f\u20e3');
    expect(escapeControl('a\ufe0f')).toBe('a\\ufe0f');
    expect(escapeControl('❤\ufe0f\ufe0f')).toBe('❤\ufe0f\\ufe0f');
    expect(escapeControl('❤\ufe01')).toBe('❤\\ufe01');
    // A joiner is never an exception here: emoji sequences show their joiners.
    expect(escapeControl('👨\u200d👩')).toBe('👨\\u200d👩');
  });
});

describe('terminalJson', () => {
  it('writes every one of them, spaces included but U+0020, as a \\u escape that parses back', () => {
    const value = { chars: ALL.map((cp) => String.fromCodePoint(cp)) };
    const out = terminalJson(value);
    const left = [...new Set(Array.from(out.replace(/ /g, ''), (ch) => ch.codePointAt(0)!))].filter((cp) => NAMED.test(String.fromCodePoint(cp)));
    expect(left.map(hex)).toEqual([]);
    expect(JSON.parse(out)).toEqual(value);
  });
});

describe('stripInvisible', () => {
  it('drops every invisible code point, exceptions included, and keeps spaces', () => {
    expect(stripInvisible('se\u00adnd\u200b_e\u034fmail\u3164 ❤\ufe0f')).toBe('send_email ❤');
  });
});
