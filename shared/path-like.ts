// What in a call's arguments could be a path: one definition for self-protection (which reads every
// string, bare names too, since those resolve in the server's folders), for scoped rules ("files under
// src/" covers a call only if every path it names is under src/) and for `connect`, which checks leased
// calls with the same code. Pure: no Node imports.
import { walkStrings, type StringPlace } from './argument-strings.js';
import { CONTENT_KEYS } from './call-targets.js';

/** Shell and JSON punctuation that cannot be part of a path written unquoted. */
export const SPLIT = /[\s"'`;|&<>(){}[\],=]+/u;
const STOP = `\\s"'\`;|&<>(){}[\\],=`;
const WORD = `[^${STOP}]`;
// A path word (a word with a separator, or one that starts with ~ . $HOME %VAR%) holds one of / \ ~ . $ %,
// the last four at its start: one native search finds only those, and each hit is widened to its word.
// A regex tried at every word start cost ~250 ms on 10 MB of mixed-script text.
const PATH_HINT = new RegExp(`[\\\\/]|[~.$%](?<!${WORD}[~.$%])`, 'g');
const WORD_AT = new RegExp(`${WORD}*`, 'y');
const PREFIX_AT = new RegExp(`(?:~|\\.|\\$\\{?HOME\\b|%[A-Z_]+%)${WORD}*`, 'y');
const ASCII_WORD = new Uint8Array(128).map((_, c) => (new RegExp(WORD).test(String.fromCharCode(c)) ? 1 : 0));
// Beyond ASCII only the Unicode spaces (what \s matches) end a word.
const isWordCode = (c: number) =>
  c < 128
    ? ASCII_WORD[c] === 1
    : !(
        c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff
      );

/** Each word of `s` that can read as a path, in order, until `visit` returns false. */
export function pathWords(s: string, visit: (word: string) => boolean): void {
  const hint = new RegExp(PATH_HINT);
  for (let m = hint.exec(s); m; m = hint.exec(s)) {
    let start = m.index;
    let end: number;
    if (m[0] === '/' || m[0] === '\\') {
      // A separator: the whole word around it (it started after the last match, which ended a word).
      while (start > 0 && isWordCode(s.charCodeAt(start - 1))) start--;
      WORD_AT.lastIndex = start;
      WORD_AT.exec(s);
      end = WORD_AT.lastIndex;
    } else {
      PREFIX_AT.lastIndex = start;
      if (!PREFIX_AT.exec(s)) continue;
      end = PREFIX_AT.lastIndex;
    }
    if (!visit(s.slice(start, end))) return;
    hint.lastIndex = end;
  }
}

/** A `..` segment anywhere: from some folder it climbs out, whatever the text claims to be. */
const DOT_DOT = /(?:^|[\\/:])\.\.(?:[\\/]|$)/;
/** URL schemes that name no local file (a drive letter is one letter, so it is never one of these). */
const URL_SCHEME = /^[a-z][a-z0-9+.-]+:\/\//i;
const NON_FILE_SCHEME = /^(?:data|mailto|urn|tel|sms|javascript|blob|about|geo|magnet|news|xmpp):/i;

/** A word that reads as a path: absolute, home- or variable-relative, a file URI, or with a separator or dot segment. */
export function looksLikePath(word: string): boolean {
  if (word.length === 0) return false;
  // Other URLs name no local file, unless a `..` in them climbs out when a server reads one as a path.
  if ((URL_SCHEME.test(word) || NON_FILE_SCHEME.test(word)) && !/^file:/i.test(word)) return DOT_DOT.test(word);
  return /^(~|\/|\\|\.|\$\{?[A-Za-z_]|%[A-Za-z_]+%|[A-Za-z]:|file:)/i.test(word) || /[\\/]/.test(word);
}

/**
 * A whole string that reads as one path. Without whitespace: as looksLikePath. With it (a name such as
 * "My Documents/x"), only when it starts as a path does (`/`, `~`, `./`, a drive, `file:`, `$HOME`):
 * otherwise it is prose, and its words are read one by one.
 */
export function isPathText(text: string): boolean {
  if (text.length === 0 || text.includes('\n')) return false;
  if (!/\s/.test(text)) return looksLikePath(text);
  return looksLikePath(text) && /^(~|\/|\\|\.\.?(?:[\\/]|$)|\$\{?[A-Za-z_]|%[A-Za-z_]+%|[A-Za-z]:[\\/]|file:)/i.test(text);
}

/** What ends a shell word: whitespace, an operator, a backquote. Quotes do not: `~/".config"/x` is one word. */
const isShellBreak = (c: number): boolean =>
  c <= 32 ||
  c === 0x3b ||
  c === 0x7c ||
  c === 0x26 ||
  c === 0x3c ||
  c === 0x3e ||
  c === 0x28 ||
  c === 0x29 ||
  c === 0x60 ||
  c === 0xa0 ||
  c === 0x3000 ||
  c === 0x2028 ||
  c === 0x2029;
/** Where quoting may hide a path: a quote beside a path character, any backslash, `${NAME}/`. */
const QUOTING_HINT = /[\\/~$]["']|["'][\\/~$.]|\\|\$\{[A-Za-z_]\w*\}[\\/]/g;
const MAX_SHELL_WORD = 4096;

/** A shell word as a shell passes it on: quotes removed, backslash escapes undone, `${NAME}` as `$NAME`. */
export function shellUnquoted(word: string): string {
  return word
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, '$$$1')
    .replace(/\\(.)/gs, '$1')
    .replace(/["']/g, '');
}

/**
 * Each shell word of `text` whose quoting or escapes could hide a path (`cat "$HOME"/.ssh/x`,
 * `~/".config"/x`, `.con\fig`, `${HOME}/x`), as the shell would pass it on, until `visit` returns false.
 * Only words around a hint are built, so 10 MB of quoted prose costs a scan.
 */
export function shellWords(text: string, visit: (word: string) => boolean): void {
  const hint = new RegExp(QUOTING_HINT);
  for (let m = hint.exec(text); m; m = hint.exec(text)) {
    let start = m.index;
    let end = m.index + m[0].length;
    while (start > 0 && m.index - start < MAX_SHELL_WORD && !isShellBreak(text.charCodeAt(start - 1))) start--;
    while (end < text.length && end - m.index < MAX_SHELL_WORD && !isShellBreak(text.charCodeAt(end))) end++;
    hint.lastIndex = end;
    const word = text.slice(start, end);
    const unquoted = shellUnquoted(word);
    if (unquoted !== word && unquoted.length && !visit(unquoted)) return;
  }
}

/** Words in argument names that say the argument holds a path (split at case changes, `_`, `-`, `.`). */
const PATH_NAME_WORDS = new Set([
  'path',
  'paths',
  'pathname',
  'file',
  'files',
  'filename',
  'filenames',
  'filepath',
  'filepaths',
  'dir',
  'dirs',
  'dirname',
  'directory',
  'directories',
  'folder',
  'folders',
  'cwd',
  'root',
  'roots',
  'dest',
  'destination',
  'src',
  'source',
  'sources',
  'target',
  'targets',
  'output',
  'outputs',
  'out',
  'outfile',
  'outdir',
  'input',
  'inputs',
  'infile',
  'from',
  'to',
  'location',
  'uri',
  'uris',
  'workdir',
  'home',
]);

/** An argument whose name says it holds a path: `path`, `output_file`, `targetDir`, `save_to`… */
export function isPathArgumentName(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => PATH_NAME_WORDS.has(w));
}

/**
 * Arguments a tool's schema says hold paths: a top-level property with a URI format, or whose title or
 * description says "path", "filename", "directory" or "folder" (not merely "file": "the content to write
 * to the file" is content). File content is never a path argument.
 */
export function schemaPathArguments(schema: unknown): Set<string> {
  const out = new Set<string>();
  const props = (schema as { properties?: unknown } | undefined)?.properties;
  if (!props || typeof props !== 'object') return out;
  const says = (p: unknown): boolean => {
    if (!p || typeof p !== 'object') return false;
    const { format, description, title, items } = p as Record<string, unknown>;
    if (typeof format === 'string' && /^(?:uri|uri-reference|iri|iri-reference)$/.test(format)) return true;
    const words = `${typeof title === 'string' ? title : ''} ${typeof description === 'string' ? description : ''}`;
    return /\b(?:paths?|file ?names?|folders?|director(?:y|ies))\b/i.test(words) || says(items);
  };
  for (const [name, p] of Object.entries(props)) if (!CONTENT_NAMES.has(name) && says(p)) out.add(name);
  return out;
}

/** File content (`write_file`'s `content`, an edit's `newText`): a path-like word in it is data, not a file the call names. */
const CONTENT_NAMES = new Set([
  ...CONTENT_KEYS,
  'oldText',
  'newText',
  'old_text',
  'new_text',
  'old_string',
  'new_string',
  'oldString',
  'newString',
  'old_str',
  'new_str',
  'replacement',
]);

/** Past this many, a call names more paths than a rule checks: it is not covered (it asks). */
export const MAX_NAMED_PATHS = 10_000;

export interface NamedPath {
  /** The top-level argument it is in. */
  key: string;
  path: string;
}

/**
 * Every path a call names, for scoped rules: anywhere in the arguments (any key, any depth, array items,
 * object keys), each string that reads as a path whole (isPathText), each path-like word inside one
 * (`--out=~/x`, `cat ~/.ssh/x`) except in file content, and every string of an argument that holds a
 * path by its name or the tool's schema (there a bare `notes.md` is a path too). `complete` is false when
 * the call holds more than is read: a rule then does not cover it.
 */
export function namedPaths(args: unknown, opts: { schema?: unknown } = {}): { paths: NamedPath[]; complete: boolean } {
  const paths: NamedPath[] = [];
  const seen = new Set<string>();
  const fromSchema = opts.schema === undefined ? undefined : schemaPathArguments(opts.schema);
  const add = (key: string, path: string): boolean => {
    const id = `${key}\0${path}`;
    if (seen.has(id)) return true;
    seen.add(id);
    paths.push({ key, path });
    return paths.length <= MAX_NAMED_PATHS;
  };
  const visit = (text: string, place: StringPlace): boolean => {
    const pathArgument = !place.isKey && (isPathArgumentName(place.key) || (place.keys.length === 1 && fromSchema?.has(place.top) === true));
    if (pathArgument ? text.trim().length > 0 : isPathText(text)) {
      if (!add(place.top, text)) return false;
    }
    if (!place.isKey && CONTENT_NAMES.has(place.key)) return true;
    let ok = true;
    const words = (form: string): boolean => {
      pathWords(form, (word) => {
        if (word !== text && looksLikePath(word)) ok = add(place.top, word);
        return ok;
      });
      return ok;
    };
    words(text);
    if (ok) shellWords(text, words);
    return ok;
  };
  const { complete } = walkStrings(args, visit);
  return { paths, complete: complete && paths.length <= MAX_NAMED_PATHS };
}
