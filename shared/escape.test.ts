import { describe, expect, it } from 'vitest';
import { escapeControl } from './escape.js';

describe('escapeControl', () => {
  it.each<[string, string, string]>([
    ['plain ASCII', 'read_file /tmp/a.txt', 'read_file /tmp/a.txt'],
    ['HTML-ish text is left alone', '<script>alert(1)</script>', '<script>alert(1)</script>'],
    ['non-Latin and emoji pass', 'café 日本 😀', 'café 日本 😀'],
    ['NUL', 'a\0b', 'a\\x00b'],
    ['newline', 'a\nb', 'a\\x0ab'],
    ['tab', 'a\tb', 'a\\x09b'],
    ['carriage return', 'a\rb', 'a\\x0db'],
    ['bell and backspace', '\x07\x08', '\\x07\\x08'],
    ['ANSI colour', '\x1b[31mred\x1b[0m', '\\x1b[31mred\\x1b[0m'],
    ['OSC hyperlink', '\x1b]8;;http://x\x07y', '\\x1b]8;;http://x\\x07y'],
    ['DEL', 'a\x7f', 'a\\x7f'],
    ['C1 control and 8-bit CSI', '\x80\x85\x9b31m\x9f', '\\x80\\x85\\x9b31m\\x9f'],
    ['non-breaking space is kept', 'a\u00a0b', 'a\u00a0b'],
    ['zero-width space', 'read\u200bfile', 'read\\u200bfile'],
    ['zero-width joiner / LRM / RLM', '\u200c\u200d\u200e\u200f', '\\u200c\\u200d\\u200e\\u200f'],
    ['word joiner and invisible operators', '\u2060\u2061\u2064', '\\u2060\\u2061\\u2064'],
    ['BOM', '\ufeffx', '\\ufeffx'],
    ['bidi embeddings and override', '\u202a\u202b\u202c\u202d\u202e', '\\u202a\\u202b\\u202c\\u202d\\u202e'],
    ['bidi isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['Arabic letter mark', '\u061c', '\\u061c'],
    ['line and paragraph separators', 'a\u2028b\u2029', 'a\\u2028b\\u2029'],
    ['Unicode tag characters', 'ok\u{e0001}\u{e0041}\u{e007f}', 'ok\\u{e0001}\\u{e0041}\\u{e007f}'],
    // U+E0080..U+E0FFF are unassigned but default-ignorable: a renderer draws them as nothing.
    ['the ignorable block past the tags is escaped', '\u{e0080}\u{e0fff}', '\\u{e0080}\\u{e0fff}'],
    ['just past the ignorable block is kept', '\u{e1000}', '\u{e1000}'],
    ['lone surrogate', 'a\ud800b', 'a\\ud800b'],
    ['empty string', '', ''],
  ])('%s', (_label, input, expected) => {
    expect(escapeControl(input)).toBe(expected);
  });

  it.each<[string, string, string]>([
    ['newline and tab kept', 'a\nb\tc', 'a\nb\tc'],
    ['carriage return still escaped', 'a\r\nb', 'a\\x0d\nb'],
    ['other controls still escaped', '\x1b[2J\n\u202e', '\\x1b[2J\n\\u202e'],
  ])('keepNewlines: %s', (_label, input, expected) => {
    expect(escapeControl(input, { keepNewlines: true })).toBe(expected);
  });

  it('leaves no control or invisible character behind', () => {
    let all = '';
    for (let cp = 0; cp <= 0x2070; cp++) all += String.fromCodePoint(cp);
    const out = escapeControl(all);
    expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069]/u);
  });

  it('is stable on its own output', () => {
    const once = escapeControl('x\x1b\u200b\u{e0041}');
    expect(escapeControl(once)).toBe(once);
  });
});

describe('terminalJson', () => {
  it('writes every character a terminal acts on as a \\u escape, and parses back to the same value', async () => {
    const { terminalJson } = await import('./escape.js');
    const hostile = { text: 'a\u009b2Jb\u202ec\u{e0041}\u{e0042}d\u007f\u200b\u2028\u00e9\u{1f600}', 'k\u202e': 1 };
    const out = terminalJson(hostile, 2);
    expect(out).not.toMatch(/[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u{e0000}-\u{e007f}]/u);
    expect(out).toContain('\\u009b');
    expect(out).toContain('\\udb40\\udc41');
    expect(out).toContain('\u00e9\u{1f600}'); // ordinary text stays readable
    expect(JSON.parse(out)).toEqual(hostile);
  });
});
