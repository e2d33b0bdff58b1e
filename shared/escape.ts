// Makes invisible or terminal-controlling characters visible, so text from a server
// (tool names, arguments, descriptions) cannot hide, reorder or restyle what a person reads.

// C0 except \t \n, DEL, C1 (incl. the 8-bit CSI that starts ANSI sequences), Arabic letter mark,
// zero-width, line/paragraph separators, bidi controls, word joiners, BOM,
// Unicode tags, and lone surrogates (the `u` flag makes [\uD800-\uDFFF] match only unpaired ones).
const SHARED =
  '\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff' +
  '\\u{e0000}-\\u{e007f}\\ud800-\\udfff';
const ALL = new RegExp(`[\\u0000-\\u001f${SHARED}]`, 'gu');
const KEEP_NEWLINES = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${SHARED}]`, 'gu');

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

function visible(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp <= 0xff) return `\\x${hex(cp, 2)}`;
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  return `\\u{${hex(cp, 1)}}`;
}

/**
 * Replaces control and invisible characters with escapes like `\x1b`, `\u200b`, `\u{e0041}`.
 * ANSI sequences are defused by escaping their ESC (or 8-bit CSI); the rest stays as plain text.
 * With `keepNewlines`, \n and \t pass through (\r does not: it can overwrite a line).
 */
export function escapeControl(text: string, opts?: { keepNewlines?: boolean }): string {
  return text.replace(opts?.keepNewlines ? KEEP_NEWLINES : ALL, visible);
}

// What JSON.stringify leaves raw but a terminal acts on or reorders: DEL, C1 (incl. the 8-bit CSI),
// the Arabic letter mark, zero-width and bidi controls, line/paragraph separators, word joiners, BOM
// and Unicode tags. (C0 and lone surrogates JSON.stringify already escapes.)
const TERMINAL_UNSAFE = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
const jsonEscape = (ch: string) =>
  Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * JSON.stringify for a terminal: the same JSON value, with every character a terminal could act on
 * written as a \u escape (astral ones as a surrogate pair), so `countersign … --json` cannot restyle,
 * reorder or hide what a person reads, and a JSON parser still reads the exact text.
 */
export function terminalJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? 'null').replace(TERMINAL_UNSAFE, jsonEscape);
}
