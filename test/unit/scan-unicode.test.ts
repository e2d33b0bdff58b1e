// The text scan warns on every code point of the one invisible set (walked from the Unicode data,
// test/helpers/unicode-invisible.ts) but its documented everyday uses, and its two searches agree: a
// regex where a window holds nothing past U+036F, a table per UTF-16 unit where it does.
import { describe, expect, it } from 'vitest';
import { scanText } from '../../electron/broker/checks/scan/index.js';
import { hex, namedInvisibleCodePoints } from '../helpers/unicode-invisible.js';

const desc = { otherServers: [], where: 'description' as const };
const codesOf = (text: string) =>
  scanText(text, desc)
    .map((f) => f.code)
    .join(',');
// The scan's own exceptions: layout (\t \n), a lone variation selector (emoji style), and spaces (not invisible).
const everyday = (cp: number) =>
  cp === 0x09 || cp === 0x0a || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || /\p{Zs}/u.test(String.fromCodePoint(cp));

describe('the text scan over the whole invisible set', () => {
  const all = namedInvisibleCodePoints();

  it('warns on each one between Latin letters, but the everyday ones', () => {
    const missed = all.filter((cp) => !everyday(cp) && codesOf(`a${String.fromCodePoint(cp)}b`) === '');
    expect(missed.map(hex)).toEqual([]);
    const flagged = all.filter((cp) => everyday(cp) && codesOf(`a${String.fromCodePoint(cp)}b`) !== '');
    expect(flagged.map(hex)).toEqual([]);
  });

  it('says the same of each one between Cyrillic letters as between Latin ones', () => {
    const differ = all.filter((cp) => {
      const ch = String.fromCodePoint(cp);
      return codesOf(`a${ch}b`) !== codesOf(`я${ch}ж`);
    });
    expect(differ.map(hex)).toEqual([]);
  });

  it('the three that once hid on the card are invisible-character findings', () => {
    expect(codesOf('pass\u00adword')).toBe('invisible-characters');
    expect(codesOf('pass\u034fword')).toBe('invisible-characters');
    expect(codesOf('pass\u3164word')).toBe('invisible-characters');
  });
});
