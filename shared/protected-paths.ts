// Self-protection, the pure half: which strings in a call's arguments may name a file, and whether a
// resolved path is one of Countersign's own (its data folder, policy, keys) or a client's config, or a
// folder holding one. Resolving (home, file:// URIs, the server's folder, symlinks) is the core's job
// (electron/broker/self-protection.ts); this file has no Node imports, so both sides can use it.

/** A file or folder that no rule, lease, allowance or trust may let a call touch without the person. */
export interface ProtectedPath {
  path: string;
  /** What it is, for the person: "Countersign's data folder", "Claude Desktop's config"… */
  what: string;
}

export interface ProtectedMatch {
  /** `inside`: the path is the protected one or inside it. `ancestor`: a folder that holds it. */
  kind: 'inside' | 'ancestor';
  what: string;
  /** The protected path, as configured. */
  root: string;
  /** The argument text that named it. */
  text: string;
}

/** Beyond this a string is data, not a path; path-like words inside it are still checked. */
const MAX_WHOLE = 4096;
const MAX_CANDIDATES = 10_000;
const MAX_DEPTH = 32;
/** Shell and JSON punctuation that cannot be part of a path written unquoted. */
const SPLIT = /[\s"'`;|&<>(){}[\],=]+/u;
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
const isWordCode = (c: number) => (c < 128 ? ASCII_WORD[c] === 1
  : !(c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));

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

/** A word that reads as a path: absolute, home-relative, a file URI, or with a separator or dot segment. */
export function looksLikePath(word: string): boolean {
  if (word.length === 0) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return /^file:/i.test(word); // other URLs name no local file
  return /^(~|\/|\\|\.|\$\{?HOME\b|%[A-Z_]+%|[A-Za-z]:[\\/])/.test(word) || /[\\/]/.test(word);
}

/**
 * Every string that might name a file: each string value and key whole (when short and on one line),
 * and each path-like word inside any string (a shell command, a config it writes). Bounded.
 */
export function pathCandidates(args: unknown): string[] {
  const out = new Set<string>();
  const add = (s: string): void => {
    if (out.size >= MAX_CANDIDATES) return;
    if (s.length <= MAX_WHOLE && !s.includes('\n')) out.add(s);
    if (!SPLIT.test(s) && s.length <= MAX_WHOLE) return;
    pathWords(s, (word) => {
      if (out.size >= MAX_CANDIDATES) return false;
      if (word.length <= MAX_WHOLE && !out.has(word) && looksLikePath(word)) out.add(word);
      return true;
    });
  };
  const walk = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || out.size >= MAX_CANDIDATES) return;
    if (typeof value === 'string') add(value);
    else if (Array.isArray(value)) for (const v of value) walk(v, depth + 1);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        add(k);
        walk(v, depth + 1);
      }
    }
  };
  walk(args, 0);
  return [...out];
}

export interface CompareOptions {
  /** The platform's separator ('/' or '\\'). */
  sep: string;
  /** macOS and Windows: paths that differ only in case name the same file. */
  caseInsensitive: boolean;
}

const ASCII = /^[\x00-\x7f]*$/;

/** One spelling for comparing: Unicode NFC (macOS stores NFD), the platform's case rule, no trailing separator. */
export function comparable(path: string, opts: CompareOptions): string {
  // ASCII is NFC already: skips ICU's normalizer (and the memory its first use maps in `connect`).
  let p = ASCII.test(path) ? path : path.normalize('NFC');
  if (opts.caseInsensitive) p = p.toLowerCase();
  while (p.length > 1 && p.endsWith(opts.sep) && !/^[A-Za-z]:\\$/.test(p)) p = p.slice(0, -1);
  return p;
}

function isRoot(p: string, sep: string): boolean {
  return p === sep || /^[a-z]:\\?$/i.test(p) || p === '';
}

/** A comparable spelling with one trailing separator, for prefix tests. */
function withSep(p: string, sep: string): string {
  return p.endsWith(sep) ? p : p + sep;
}

/** How a resolved path relates to a protected one; both already absolute and normalised. */
export function relation(path: string, protectedPath: string, opts: CompareOptions): 'inside' | 'ancestor' | undefined {
  const p = comparable(path, opts);
  const r = comparable(protectedPath, opts);
  return relationOf(p, withSep(p, opts.sep), isRoot(p, opts.sep), r, withSep(r, opts.sep));
}

/** relation() of two spellings already made comparable, each also given with its trailing separator. */
function relationOf(p: string, pSep: string, pIsRoot: boolean, r: string, rSep: string): 'inside' | 'ancestor' | undefined {
  if (p === r || p.startsWith(rSep)) return 'inside';
  // A filesystem root holds everything; naming it is not naming Countersign's files.
  if (!pIsRoot && r.startsWith(pSep)) return 'ancestor';
  return undefined;
}

/** The resolved forms of one argument text (as written, and with symlinks followed). */
export interface ResolvedCandidate {
  text: string;
  forms: string[];
}

/** Each protected path with its resolved forms (as configured, and with symlinks followed). */
export interface ProtectedRoot extends ProtectedPath {
  forms: string[];
}

/** Every match between the arguments' paths and the protected ones; `inside` matches first. */
export function matchProtected(candidates: ResolvedCandidate[], roots: ProtectedRoot[], opts: CompareOptions): ProtectedMatch[] {
  const found: ProtectedMatch[] = [];
  // The roots' spellings are prepared once per root list (a lease's scope is one list for many calls):
  // this runs on every leased call, so no string is built per pair. Plain loops and arrays grown by push,
  // not Array#map: map's result arrays differ in elements kind by the tier that ran it, and each new
  // lease's list then deoptimized this function again (a recompile of tens of ms in every `connect`).
  const prepared = preparedRoots(roots, opts);
  const { sep } = opts;
  const forms: string[] = [];
  const formsSep: string[] = [];
  const formsRoot: boolean[] = [];
  let seen: Set<string> | undefined;
  for (let c = 0; c < candidates.length; c++) {
    const candidate = candidates[c]!;
    forms.length = formsSep.length = formsRoot.length = 0;
    for (let i = 0; i < candidate.forms.length; i++) {
      const f = comparable(candidate.forms[i]!, opts);
      forms.push(f);
      formsSep.push(withSep(f, sep));
      formsRoot.push(isRoot(f, sep));
    }
    for (let r = 0; r < prepared.length; r++) {
      const root = prepared[r]!;
      let kind: ProtectedMatch['kind'] | undefined;
      for (let i = 0; i < forms.length && kind !== 'inside'; i++) {
        for (let j = 0; j < root.forms.length; j++) {
          const k = relationOf(forms[i]!, formsSep[i]!, formsRoot[i]!, root.forms[j]!, root.formsSep[j]!);
          if (k === 'inside') {
            kind = 'inside';
            break;
          }
          if (k === 'ancestor') kind = 'ancestor';
        }
      }
      if (kind) addMatch(found, (seen ??= new Set()), kind, root.root, candidate.text);
    }
  }
  return found.length > 1 ? found.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'inside' ? -1 : 1)) : found;
}

function addMatch(found: ProtectedMatch[], seen: Set<string>, kind: ProtectedMatch['kind'], root: ProtectedRoot, text: string): void {
  const key = `${kind}\u0000${root.path}\u0000${text}`;
  if (seen.has(key)) return;
  seen.add(key);
  found.push({ kind, what: root.what, root: root.path, text });
}

interface PreparedRoot {
  root: ProtectedRoot;
  /** Its forms made comparable, and each with one trailing separator. */
  forms: string[];
  formsSep: string[];
}

const prepared = new WeakMap<ProtectedRoot[], { sep: string; caseInsensitive: boolean; roots: PreparedRoot[] }>();
function preparedRoots(roots: ProtectedRoot[], opts: CompareOptions): PreparedRoot[] {
  const entry = prepared.get(roots);
  if (entry && entry.sep === opts.sep && entry.caseInsensitive === opts.caseInsensitive) return entry.roots;
  const list: PreparedRoot[] = [];
  for (const root of roots) {
    const forms: string[] = [];
    const formsSep: string[] = [];
    for (const f of root.forms) {
      const c = comparable(f, opts);
      forms.push(c);
      formsSep.push(withSep(c, opts.sep));
    }
    list.push({ root, forms, formsSep });
  }
  prepared.set(roots, { sep: opts.sep, caseInsensitive: opts.caseInsensitive, roots: list });
  return list;
}

/** Whether the matches make the call critical: naming the files always; a folder holding them unless the tool only reads. */
export function isCritical(matches: readonly ProtectedMatch[], toolOnlyReads: boolean): boolean {
  return matches.some((m) => m.kind === 'inside' || !toolOnlyReads);
}
