// The one set of characters a person must never be shown raw: they draw nothing, act on a terminal or
// reorder text, so server or agent text could hide, reorder or restyle what a person reads with them.
// Escapes (shared/escape.ts), the CLI's output, the UI's marks (renderer/src/lib/visible-text.ts) and
// the text scan all take it from here. It is derived from Unicode properties, so it follows the
// Unicode version of the JS engine instead of a hand list:
//   Cc     C0, DEL and C1 (ESC and the 8-bit CSI start ANSI sequences)
//   Cf     format characters: zero-width ones, bidi controls, word joiners, BOM, tags, interlinear
//          annotation, Arabic number signs, Egyptian and shorthand format controls…
//   Zl Zp  line and paragraph separators
//   Default_Ignorable_Code_Point
//          what a renderer draws as nothing: soft hyphen, combining grapheme joiner, Hangul fillers,
//          variation selectors, Mongolian vowel separator and selectors, and the unassigned code points
//          Unicode reserves as ignorable (U+2065, U+FFF0–U+FFF8, U+E0080–U+E0FFF…)
//   Cs     lone surrogates (with the `u` flag \p{Cs} matches only an unpaired half)
// Deliberate exceptions, each only where it is named:
//   - \n and \t, where line breaks are kept (`keepNewlines`: the UI, multi-line text): they lay text out
//     and hide nothing. \r is never excepted: it can overwrite a line.
//   - U+FE0E / U+FE0F (text / emoji presentation) right after an emoji: how everyday emoji are spelled
//     ("❤️"). A second selector, or one after anything else, is marked.
//   - Spaces. U+0020 is the space; the other Zs (no-break, thin, ideographic…) show as blanks, hide
//     nothing, and French or CJK text uses them, so they are ODD_SPACE, not invisible: the UI marks
//     them and JSON output escapes them, while escapeControl's plain text keeps them.
// The text scan adds its own context rules on top (joiners inside emoji and joining scripts, CRLF, a
// file's BOM): those decide whether to *warn*; what is revealed is this set.

/** Regex character-class body (for `[…]` under the `u` flag) of every invisible or control code point. */
export const INVISIBLE_CLASS = '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\p{Cs}';

const PRESENTATION = '\\uFE0E\\uFE0F';

/**
 * A regex source matching one invisible code point, with the exceptions above: a presentation selector
 * right after an emoji passes, and with `keepNewlines` so do \n and \t. For the `u` flag.
 */
export function invisibleSource(opts: { keepNewlines?: boolean } = {}): string {
  const keep = opts.keepNewlines ? '\\n\\t' : '';
  return `(?:[${PRESENTATION}](?<!\\p{Emoji}[${PRESENTATION}])|(?![${PRESENTATION}${keep}])[${INVISIBLE_CLASS}])`;
}

/** A regex source matching one space that is not U+0020 (Zs): it looks like a space and is not one. */
export const ODD_SPACE = '(?:(?! )\\p{Zs})';

const ANY_INVISIBLE = new RegExp(`^[${INVISIBLE_CLASS}]$`, 'u');
const EVERY_INVISIBLE = new RegExp(`[${INVISIBLE_CLASS}]`, 'gu');
const ODD_SPACE_ONLY = new RegExp(`^${ODD_SPACE}$`, 'u');

/** Whether one code point is in the set, whatever its context (no exception applies). */
export function isInvisible(cp: number): boolean {
  return ANY_INVISIBLE.test(String.fromCodePoint(cp));
}

/** Whether one code point is a space other than U+0020. */
export function isOddSpace(cp: number): boolean {
  return ODD_SPACE_ONLY.test(String.fromCodePoint(cp));
}

/** The text without any invisible code point, exceptions included: for comparing names as a reader sees them. */
export function stripInvisible(text: string): string {
  return text.replace(EVERY_INVISIBLE, '');
}
