// Whether a call's arguments run Countersign's own command line: a shell, exec or terminal tool given
// `countersign servers approve x`, `npx countersign …`, `node …/bin/countersign.mjs …`, the desktop
// app's binary with `--cli`, inside `sh -c '…'`, after `env X=1` or `sudo`, as one string or an argv
// array. Such a call is critical, like a write to Countersign's files: an agent must not approve,
// trust or change anything through the person's own CLI. Pure; self-protection (both in the broker and
// in `connect`) asks this of every call. The programs' paths (whatever they are named) are matched
// there too, as protected paths that run the CLI (electron/broker/checks/self-protection.ts).
import { walkStrings } from './argument-strings.js';
import { shellUnquoted } from './path-like.js';

/** The CLI's commands (electron/cli/run.ts), its global flags, and the app's switch into CLI mode. */
const COMMANDS = new Set(['serve', 'connect', 'servers', 'log', 'clients', 'wrap', 'unwrap', 'help']);

/** What separates words in a shell, JSON or code string: `countersign` must stand as a word of its own. */
const isBreak = (c: number): boolean =>
  c !== c /* NaN: either end */ ||
  c <= 32 ||
  c === 0x22 ||
  c === 0x27 ||
  c === 0x60 ||
  c === 0x3b ||
  c === 0x7c ||
  c === 0x26 ||
  c === 0x3c ||
  c === 0x3e ||
  c === 0x28 ||
  c === 0x29 ||
  c === 0x7b ||
  c === 0x7d ||
  c === 0x2c ||
  c === 0x24 ||
  c === 0x3d ||
  c === 0x2f ||
  c === 0x5c ||
  c === 0xa0 ||
  c === 0x3000;

/**
 * A program name that is Countersign's: `countersign`, `countersign.mjs`, `Countersign.exe`,
 * `countersign@1.2.0` (an npm spec), `Countersign-1.2.0.AppImage`, any case; a glob (`counter*`) that
 * matches it counts.
 */
export function isCountersignName(word: string): boolean {
  let w = word
    .toLowerCase()
    .replace(/^@[^/]*\//, '')
    .replace(/^\[+(?!.*\])|\]+$(?<!\[.*)/g, '');
  w = w.replace(/@[^@]*$/, '');
  for (let i = 0; i < 3; i++) w = w.replace(/\.(?:mjs|cjs|js|ts|exe|cmd|bat|ps1|sh|appimage|app)$/, '');
  w = w.replace(/[-_ ]v?\d[\w.+-]*$/, '');
  if (w === 'countersign') return true;
  // A glob can match it only with the name's own letters beside its wildcards (prose's "why?" cannot).
  if (!/[*?[]/.test(w) || w.length > 64 || !/^[countersig*?[\]!^-]+$/.test(w)) return false;
  // A shell glob: * any run, ? one character, [...] a class.
  const source = w
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
    .replace(/\[!/g, '[^');
  try {
    return new RegExp(`^${source}$`).test('countersign');
  } catch {
    return false;
  }
}

/** Ends a shell word: whitespace, an operator, a backquote, or a comma or bracket between argv items. */
const endsShellWord = (c: number): boolean =>
  c <= 32 ||
  c === 0x3b ||
  c === 0x7c ||
  c === 0x26 ||
  c === 0x3c ||
  c === 0x3e ||
  c === 0x28 ||
  c === 0x29 ||
  c === 0x60 ||
  c === 0x2c ||
  c === 0x5b ||
  c === 0x5d ||
  c === 0xa0 ||
  c === 0x3000;

/**
 * The shell word after `at` in `text` as the shell passes it on (quotes removed, escapes undone), past
 * spaces, commas, brackets and `${IFS}`; `$` when it starts with an expansion, `` ` `` with a substitution.
 */
function nextWord(text: string, at: number): string {
  let i = at;
  for (;;) {
    const ifs = text[i] === '$' ? /^\$\{?IFS\}?/.exec(text.slice(i, i + 6)) : null;
    if (ifs) i += ifs[0].length;
    else if (i < text.length && (endsShellWord(text.charCodeAt(i)) || text[i] === '"' || text[i] === "'") && !(text[i] === '`' && i > at)) i++;
    else break;
  }
  let word = '';
  for (let j = i; j < text.length && j - i < 256; j++) {
    const c = text[j]!;
    if (c === '$' || c === '`') return word || c;
    if (c === '"' || c === "'") continue;
    if (c === '\\') {
      word += text[++j] ?? '';
      continue;
    }
    if (endsShellWord(text.charCodeAt(j)) || c === '=') break;
    word += c;
  }
  return word;
}

/** A word that, after a Countersign program name, makes it a run of the CLI. */
function startsCommand(word: string): boolean {
  return COMMANDS.has(word) || word.startsWith('-') || word.startsWith('$') || word.startsWith('`');
}

/** The name with quotes or backslashes between any of its letters (`c\\ountersign`, `counter"sign"`), or a glob character. */
const NAME_HINT = new RegExp(`${[...'countersign'].join(`["'\\\\]*`)}|[*?[]`, 'gi');

/** Where `text` runs Countersign's CLI: an excerpt around it, or undefined. */
export function cliRunIn(text: string): string | undefined {
  // Each hit of the name (or of a glob character) is widened to its word, as pathWords does for paths.
  const hint = new RegExp(NAME_HINT);
  for (let m = hint.exec(text); m; m = hint.exec(text)) {
    let start = m.index;
    let end = m.index + m[0].length;
    while (start > 0 && !isBreak(text.charCodeAt(start - 1))) start--;
    while (end < text.length && !isBreak(text.charCodeAt(end))) end++;
    hint.lastIndex = Math.max(end, m.index + 1);
    // A glob hit (prose is full of `?`) is looked at only when a CLI command follows it: the cheaper test first.
    const glob = m[0].length === 1;
    if (glob && !startsCommand(nextWord(text, end))) continue;
    const name = text.slice(start, end);
    if (!isCountersignName(name) && !(/["'\\]/.test(m[0]) && isCountersignName(shellUnquoted(name)))) continue;
    if (glob || startsCommand(nextWord(text, end))) return text.slice(Math.max(0, start - 40), Math.min(text.length, end + 80));
  }
  return undefined;
}

/**
 * Where the arguments run Countersign's CLI, or undefined. Every string value is read in order as one
 * text (an argv array's items, `{command, args}`), the keys as another; quotes and escapes inside the
 * name or its first argument are read as a shell reads them (`c\ountersign "ser"vers`). `complete`
 * false: more than was read; the caller fails closed.
 */
export function cliRun(args: unknown): { excerpt?: string; complete: boolean } {
  // Values in order, as an argv (`{command: 'countersign', args: [...]}` reads as one command line); keys apart.
  const values: string[] = [];
  const keys: string[] = [];
  const { complete } = walkStrings(args, (s, place) => {
    (place.isKey ? keys : values).push(s);
  });
  for (const text of [values.join('\n'), keys.join('\n')]) {
    const excerpt = cliRunIn(text);
    if (excerpt !== undefined) return { excerpt, complete };
  }
  return { complete };
}
