// Whether a call's arguments run Countersign's own command line: a shell, exec or terminal tool given
// `countersign servers approve x`, `npx countersign …`, `node …/bin/countersign.mjs …`, the desktop
// app's binary with `--cli`, inside `sh -c '…'`, after `env X=1` or `sudo`, as one string or an argv
// array. Such a call is critical, like a write to Countersign's files: an agent must not approve,
// trust or change anything through the person's own CLI. Pure; self-protection (both in the broker and
// in `connect`) asks this of every call. The programs' paths (whatever they are named) are matched
// there too, as protected paths that run the CLI (electron/broker/self-protection.ts).
import { walkStrings } from './argument-strings.js';
import { shellUnquoted } from './path-like.js';

/** The CLI's commands (electron/cli/run.ts), its global flags, and the app's switch into CLI mode. */
const COMMANDS = new Set(['serve', 'connect', 'servers', 'log', 'clients', 'wrap', 'unwrap', 'help']);

/** What separates words in a shell, JSON or code string: `countersign` must stand as a word of its own. */
const isBreak = (c: number): boolean =>
  c !== c /* NaN: either end */ || c <= 32 || c === 0x22 || c === 0x27 || c === 0x60 || c === 0x3b || c === 0x7c || c === 0x26
  || c === 0x3c || c === 0x3e || c === 0x28 || c === 0x29 || c === 0x7b || c === 0x7d || c === 0x2c || c === 0x24
  || c === 0x3d || c === 0x2f || c === 0x5c || c === 0xa0 || c === 0x3000;

/**
 * A program name that is Countersign's: `countersign`, `countersign.mjs`, `Countersign.exe`,
 * `countersign@1.2.0` (an npm spec), `Countersign-1.2.0.AppImage`, any case; a glob (`counter*`) that
 * matches it counts.
 */
export function isCountersignName(word: string): boolean {
  let w = word.toLowerCase().replace(/^@[^/]*\//, '').replace(/^\[+(?!.*\])|\]+$(?<!\[.*)/g, '');
  w = w.replace(/@[^@]*$/, '');
  for (let i = 0; i < 3; i++) w = w.replace(/\.(?:mjs|cjs|js|ts|exe|cmd|bat|ps1|sh|appimage|app)$/, '');
  w = w.replace(/[-_ ]v?\d[\w.+-]*$/, '');
  if (w === 'countersign') return true;
  if (!/[*?[]/.test(w) || w.length > 64) return false;
  // A shell glob: * any run, ? one character, [...] a class.
  const source = w.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.').replace(/\[!/g, '[^');
  try {
    return new RegExp(`^${source}$`).test('countersign');
  } catch {
    return false;
  }
}

/** The word after `at` in `text`, past spaces, quotes, commas, brackets and `${IFS}`. */
function nextWord(text: string, at: number): string {
  let i = at;
  for (;;) {
    const ifs = /^\$\{?IFS\}?/.exec(text.slice(i, i + 6));
    if (ifs) i += ifs[0].length;
    else if (i < text.length && /[\s"'`,[\]]/.test(text[i]!)) i++;
    else break;
  }
  const m = /^[^\s"'`,[\];|&<>()]*/.exec(text.slice(i, i + 256));
  return m ? m[0] : '';
}

/** A word that, after a Countersign program name, makes it a run of the CLI. */
function startsCommand(word: string): boolean {
  return COMMANDS.has(word) || word.startsWith('-') || word.startsWith('$') || word.startsWith('`');
}

/** Where `text` runs Countersign's CLI: an excerpt around it, or undefined. */
export function cliRunIn(text: string): string | undefined {
  // Each hit of the name (or of a glob character) is widened to its word, as pathWords does for paths.
  const hint = /countersign|[*?[]/gi;
  for (let m = hint.exec(text); m; m = hint.exec(text)) {
    let start = m.index;
    let end = m.index + m[0].length;
    while (start > 0 && !isBreak(text.charCodeAt(start - 1))) start--;
    while (end < text.length && !isBreak(text.charCodeAt(end))) end++;
    hint.lastIndex = Math.max(end, m.index + 1);
    if (!isCountersignName(text.slice(start, end))) continue;
    if (startsCommand(nextWord(text, end))) return text.slice(Math.max(0, start - 40), Math.min(text.length, end + 80));
  }
  return undefined;
}

/**
 * Where the arguments run Countersign's CLI, or undefined. Every string and key is read in order as one
 * text (an argv array's items, `{command, args}`), as written and as a shell passes it on (quotes and
 * escapes removed: `c\ountersign`, `"counter"sign`). `complete` false: more than was read; the caller
 * fails closed.
 */
export function cliRun(args: unknown): { excerpt?: string; complete: boolean } {
  const parts: string[] = [];
  const { complete } = walkStrings(args, (s) => {
    parts.push(s);
  });
  const text = parts.join('\n');
  const excerpt = cliRunIn(text) ?? ((u) => (u === undefined ? undefined : cliRunIn(u)))(shellUnquoted(text));
  return { excerpt, complete };
}
