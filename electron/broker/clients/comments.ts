// Comments in or beside values that an edit replaces or removes (a note beside the old command, a line
// in an env table) would vanish with them, or stay beside a new value they do not describe. The formats
// take such comments out, mark each as describing the entry before the wrap, and put them at the top of
// the entry (YAML: beside the new command), so the person's words stay in their file, and say what
// they were about. The exact original entry, comments included, is in Countersign's backup.
import { createScanner } from 'jsonc-parser';
import { Lexer } from 'yaml';

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot import.
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const LINE_BREAK = 14;
const TRIVIA = 15;
const EOF = 17;

export interface CommentToken {
  start: number;
  end: number;
  text: string;
}

/** Comment tokens of a JSONC text in [start, end), with their offsets. */
export function jsonCommentTokens(text: string, start = 0, end = text.length): CommentToken[] {
  const part = text.slice(start, end);
  const scanner = createScanner(part, false);
  const out: CommentToken[] = [];
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind !== LINE_COMMENT && kind !== BLOCK_COMMENT) continue;
    const at = scanner.getTokenOffset();
    out.push({ start: start + at, end: start + at + scanner.getTokenLength(), text: part.slice(at, at + scanner.getTokenLength()).trim() });
  }
  return out;
}

export function jsonComments(text: string, start = 0, end = text.length): string[] {
  return jsonCommentTokens(text, start, end).map((c) => c.text);
}

/**
 * Comments right after offset `at` on the same line (past one comma and spaces): what a person writes
 * beside a value, `"command": "npx", // runs the server with npx`.
 */
export function jsonCommentsBeside(text: string, at: number): CommentToken[] {
  const scanner = createScanner(text.slice(at), false);
  const out: CommentToken[] = [];
  let commas = 0;
  for (let kind = scanner.scan(); kind !== EOF && kind !== LINE_BREAK; kind = scanner.scan()) {
    if (kind === TRIVIA) continue;
    const start = at + scanner.getTokenOffset();
    const end = start + scanner.getTokenLength();
    // A block comment that runs past the line is the next line's business.
    if ((kind === LINE_COMMENT || kind === BLOCK_COMMENT) && !/[\r\n]/.test(text.slice(start, end))) out.push({ start, end, text: text.slice(start, end) });
    else if (text[start] === ',' && commas++ === 0 && !out.length) continue;
    else break;
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

/** `#` comments of a YAML text, as its lexer reads them (never a `#` inside a string). */
export function yamlComments(text: string): string[] {
  const out: string[] = [];
  for (const token of new Lexer().lex(text)) if (token.startsWith('#')) out.push(token.trimEnd());
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

const MARK = "before Countersign's wrap";

/**
 * A comment that described what the wrap replaced, saying so: `// runs with npx` beside `command`
 * becomes `// described command before Countersign's wrap: runs with npx`. Marked ones stay as they are.
 */
export function describedOriginal(comment: string, key: string | undefined): string {
  if (comment.includes(MARK)) return comment;
  const what = `described ${key ?? 'this entry'} ${MARK}:`;
  if (comment.startsWith('//')) return `// ${what} ${comment.slice(2).trim()}`;
  if (comment.startsWith('/*')) return `/* ${what} ${comment.slice(2, -2).trim()} */`;
  return `# ${what} ${comment.replace(/^#+/, '').trim()}`;
}
