// Self-protection, the pure half: which strings in a call's arguments may name a file, and whether a
// resolved path is one of Countersign's own (its data folder, policy, keys) or a client's config, or a
// folder holding one. Resolving (home, file:// URIs, the server's folder, symlinks) is the core's job
// (electron/broker/checks/self-protection.ts); this file has no Node imports, so both sides can use it.

import { walkStrings } from './argument-strings.js';
import { looksLikePath, pathWords, shellWords, SPLIT } from './path-like.js';

/** A file or folder that no rule, lease, allowance or trust may let a call touch without the person. */
export interface ProtectedPath {
  path: string;
  /** What it is, for the person: "Countersign's data folder", "Claude Desktop's config"… */
  what: string;
  /** A program that runs Countersign's command line: a call naming it (not a folder above it) runs Countersign. */
  runs?: true;
}

export interface ProtectedMatch {
  /**
   * `inside`: the path is the protected one or inside it. `ancestor`: a folder that holds it. `runs`: the
   * call runs Countersign's command line (electron/broker/checks/self-protection.ts, shared/cli-invocation.ts).
   */
  kind: 'inside' | 'ancestor' | 'runs';
  what: string;
  /** The protected path, as configured ('' when the match is not about one path). */
  root: string;
  /** The argument text that named it. */
  text: string;
}

/** Beyond this a string is data, not a path, unless its `.`/`..` segments fold it shorter; path-like words inside it are still checked. */
const MAX_WHOLE = 4096;
const MAX_CANDIDATES = 10_000;

/**
 * A long text folded as a server folds a path (`.` and empty segments dropped, `a/..` removed), with `/`
 * (and, for `both`, `\\` too) as separators: `a/../` repeated 1,000 times before a short path is that
 * path. Undefined once it cannot fold to MAX_WHOLE (no `..` left to shorten it): 10 MB of base64 costs a
 * scan, not a split.
 */
function folded(text: string, both: boolean): string | undefined {
  const sep = both ? /[\\/]/ : /\//;
  const up = both ? /(?:^|[\\/])\.\.(?=[\\/]|$)/g : /(?:^|\/)\.\.(?=\/|$)/g;
  let ups = 0;
  while (up.exec(text)) ups++;
  const lead = (both ? /^(?:[A-Za-z]:)?[\\/]*/ : /^\/*/).exec(text)![0];
  const out: string[] = [];
  let length = lead.length;
  let at = lead.length;
  while (at <= text.length) {
    const rest = text.slice(at, at + MAX_WHOLE + 1);
    const m = sep.exec(rest);
    // A segment longer than MAX_WHOLE cannot be in a path a server opens.
    if (!m && rest.length > MAX_WHOLE) return undefined;
    const end = m ? at + m.index : text.length;
    const seg = text.slice(at, end);
    at = end + 1;
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      ups--;
      if (out.length && out[out.length - 1] !== '..') {
        length -= out.pop()!.length + 1;
        continue;
      }
    }
    out.push(seg);
    length += seg.length + 1;
    if (ups === 0 && length > MAX_WHOLE) return undefined;
  }
  return length > MAX_WHOLE ? undefined : lead + out.join('/');
}

/**
 * Every string that might name a file: each string value and key whole (when on one line, and short
 * or folding short), each path-like word inside any string (a shell command, a config it writes), and
 * each quoted or escaped shell word as the shell passes it on. `complete` is false when the call holds more than this
 * reads (too many strings or values, or too deep): self-protection then treats it as critical.
 */
export function pathCandidates(args: unknown): { texts: string[]; complete: boolean } {
  const out = new Set<string>();
  let full = false;
  const whole = (s: string): void => {
    if (s.includes('\n')) return;
    if (s.length <= MAX_WHOLE) out.add(s);
    else {
      for (const both of [false, true]) {
        const f = folded(s, both);
        if (f !== undefined) out.add(f);
      }
    }
  };
  const words = (s: string): boolean => {
    pathWords(s, (word) => {
      if (out.size >= MAX_CANDIDATES) return !(full = true);
      if (word !== s && !out.has(word) && looksLikePath(word)) whole(word);
      return true;
    });
    return !full;
  };
  const { complete } = walkStrings(args, (s) => {
    if (out.size >= MAX_CANDIDATES) return !(full = true);
    whole(s);
    if (SPLIT.test(s) || s.length > MAX_WHOLE) words(s);
    // Quoted or escaped words, as the shell passes them on: each whole, and its path words.
    shellWords(s, (w) => {
      if (!full && looksLikePath(w)) whole(w);
      return words(w);
    });
    return !full;
  });
  return { texts: [...out], complete: complete && !full };
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
      // Naming a program that runs Countersign's command line runs it; a folder above it is just a folder.
      if (kind && root.root.runs) {
        if (kind === 'inside') addMatch(found, (seen ??= new Set()), 'runs', root.root, candidate.text);
      } else if (kind) addMatch(found, (seen ??= new Set()), kind, root.root, candidate.text);
    }
  }
  return found.length > 1 ? found.sort((a, b) => ((a.kind === 'ancestor') === (b.kind === 'ancestor') ? 0 : a.kind === 'ancestor' ? 1 : -1)) : found;
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

/**
 * Whether the matches make the call critical: naming the files, or running Countersign's command line,
 * always; a folder holding them unless the tool only reads.
 */
export function isCritical(matches: readonly ProtectedMatch[], toolOnlyReads: boolean): boolean {
  return matches.some((m) => m.kind !== 'ancestor' || !toolOnlyReads);
}
