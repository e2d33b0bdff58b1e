// Comments inside values that an edit replaces or removes (a note beside an argument, a line in an env
// table) would vanish with them. The formats find such comments and carry them to just above the entry's
// new keys, so the person's words stay in their file.
import { createScanner } from 'jsonc-parser';

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot import.
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const EOF = 17;

export function jsonComments(text: string, start: number, end: number): string[] {
  const part = text.slice(start, end);
  const scanner = createScanner(part, false);
  const out: string[] = [];
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    const at = scanner.getTokenOffset();
    if (kind === LINE_COMMENT || kind === BLOCK_COMMENT) out.push(part.slice(at, at + scanner.getTokenLength()).trim());
  }
  return out;
}

/** `#` comments of a TOML text, skipping anything inside strings. */
export function tomlComments(text: string, start: number, end: number): string[] {
  const out: string[] = [];
  let quote = '';
  for (let i = start; i < end; i++) {
    const c = text[i]!;
    if (quote) {
      if (quote.length === 1 && (c === '\n' || c === '\r')) quote = '';
      else if (c === '\\' && quote.startsWith('"')) i++;
      else if (text.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = '';
      }
    } else if (c === '"' || c === "'") {
      quote = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += quote.length - 1;
    } else if (c === '#') {
      let j = i;
      while (j < end && text[j] !== '\n' && text[j] !== '\r') j++;
      out.push(text.slice(i, j).trimEnd());
      i = j;
    }
  }
  return out;
}

/** Comments in `before` that `after` no longer has (each counted as often as it appears). */
export function lostComments(before: string[], after: string[]): string[] {
  const left = [...after];
  return before.filter((c) => {
    const at = left.indexOf(c);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}
