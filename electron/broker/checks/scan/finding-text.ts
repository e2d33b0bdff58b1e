// How a finding quotes the text it is about: escaped with the one invisible set (escapeControl), squashed
// to one line, and clipped to about a line of context, at a cost that does not grow with the text.
import { escapeControl } from '../../../../shared/escape.js';

const CONTEXT_CHARS = 60;
/** Most visible characters of a match an excerpt shows. */
export const MATCH_CHARS = 120;

/** Never start or end a slice between the halves of a surrogate pair. */
export function boundary(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return i > 0 && code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}

/**
 * Escapes and clips to about `max` visible characters, from the start or the end. Only the few code
 * points that can show are looked at, so a 10 MB match costs no more than a short one.
 */
export function revealClip(text: string, max: number, fromEnd = false): string {
  const reach = 2 * max + 2;
  const part = text.length <= reach ? text : fromEnd ? text.slice(boundary(text, text.length - reach)) : text.slice(0, boundary(text, reach));
  const cps = Array.from(part);
  if (fromEnd) cps.reverse();
  let out: string[] = [];
  let used = 0;
  for (const ch of cps) {
    // One code point alone: no exception applies, so every invisible one is shown escaped.
    const shown = escapeControl(ch);
    if (used + shown.length > max) {
      out.push('…');
      break;
    }
    out.push(shown);
    used += shown.length;
  }
  if (part.length < text.length && out[out.length - 1] !== '…') out.push('…');
  if (fromEnd) out = out.reverse();
  return out.join('');
}

// Squashed to one line, except a character finding's match, which is escaped exactly.
const squash = (s: string) => s.replace(/\r?\n|\t/g, ' ');

/** The text around [start, end), escaped and clipped; `exact` keeps the match's own line breaks visible. */
export function excerptAt(text: string, start: number, end: number, exact: boolean): string {
  const from = boundary(text, Math.max(0, start - CONTEXT_CHARS));
  const to = boundary(text, Math.min(text.length, end + CONTEXT_CHARS));
  const pre = revealClip(squash(text.slice(from, start)), CONTEXT_CHARS, true);
  // Only the start of a long match can show: clip before squashing.
  const shownEnd = end - start > 2 * MATCH_CHARS + 2 ? boundary(text, start + 2 * MATCH_CHARS + 2) : end;
  const matched = text.slice(start, shownEnd);
  const mid = revealClip(exact ? matched : squash(matched), MATCH_CHARS);
  const post = revealClip(squash(text.slice(end, to)), CONTEXT_CHARS);
  const lead = from > 0 && !pre.startsWith('…') ? '…' : '';
  const tail = to < text.length && !post.endsWith('…') ? '…' : '';
  return `${lead}${pre}${mid}${post}${tail}`;
}

/** Server text quoted inside a message: escaped and short. */
export const quote = (s: string, max = 60) => `"${revealClip(squash(s.length > 4 * max ? s.slice(0, boundary(s, 4 * max)) : s), max)}"`;
