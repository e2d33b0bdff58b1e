// Makes invisible or terminal-controlling characters visible, so text from a server
// (tool names, arguments, descriptions) cannot hide, reorder or restyle what a person reads.
// Which characters: the one set in shared/text/invisible.ts.
import { invisibleSource, ODD_SPACE } from './text/invisible.js';

const ALL = new RegExp(invisibleSource(), 'gu');
const KEEP_NEWLINES = new RegExp(invisibleSource({ keepNewlines: true }), 'gu');

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

function visible(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp <= 0x9f) return `\\x${hex(cp, 2)}`; // C0, DEL, C1: the bytes a terminal reads as controls
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  return `\\u{${hex(cp, 1)}}`;
}

/**
 * Replaces control and invisible characters with escapes like `\x1b`, `\u200b`, `\u{e0041}`.
 * ANSI sequences are defused by escaping their ESC (or 8-bit CSI); the rest stays as plain text.
 * With `keepNewlines`, \n and \t pass through (\r does not: it can overwrite a line).
 * Spaces other than U+0020 are kept: they show as blanks (the UI marks them; terminalJson escapes them).
 */
export function escapeControl(text: string, opts?: { keepNewlines?: boolean }): string {
  return text.replace(opts?.keepNewlines ? KEEP_NEWLINES : ALL, visible);
}

// What JSON.stringify leaves raw of the invisible set (it escapes C0 and lone surrogates in strings
// itself; the only raw \n are its own line breaks), and spaces other than U+0020: written as \u
// escapes, which a JSON parser reads back as the same text.
const TERMINAL_UNSAFE = new RegExp(`${invisibleSource({ keepNewlines: true })}|${ODD_SPACE}`, 'gu');
const jsonEscape = (ch: string) => Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/**
 * JSON.stringify for a terminal: the same JSON value, with every character a terminal could act on or
 * a reader could miss written as a \u escape (astral ones as a surrogate pair), so `countersign … --json`
 * cannot restyle, reorder or hide what a person reads, and a JSON parser still reads the exact text.
 */
export function terminalJson(value: unknown, space?: number): string {
  return (JSON.stringify(value, null, space) ?? 'null').replace(TERMINAL_UNSAFE, jsonEscape);
}
