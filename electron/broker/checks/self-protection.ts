// Self-protection, the resolving half: turns what a call's arguments say into the files they may name,
// as any server or shell could read them (path-spellings.ts: every base folder of a relative
// path, home, variables, file:// URIs, encodings, /proc aliases, Windows aliases), follows symlinks as
// far as the path exists, and catches other names of the same file on disk by device and inode (a hard
// link, a bind mount, another case or Unicode form the file system folds). A match with Countersign's own
// files, a client's config or a program that runs Countersign's CLI makes the call critical: it always
// asks, whatever rule, lease, allowance or trust says.
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliRun } from '../../../shared/cli-invocation.js';
import {
  matchProtected,
  pathCandidates,
  type ProtectedMatch,
  type ProtectedPath,
  type ProtectedRoot,
  type ResolvedCandidate,
} from '../../../shared/protected-paths.js';
import { absoluteForms, pathFor, type SpellingScope } from './path-spellings.js';
import { monotonicMs } from '../core/clock.js';

export type { ProtectedMatch, ProtectedPath } from '../../../shared/protected-paths.js';

/** What a check needs, as plain data: `connect` gets it with a lease and checks leased calls itself. */
export interface ProtectScope extends SpellingScope {
  roots: ProtectedRoot[];
  /** The folder the server runs in (also bases[0]). */
  cwd: string;
  /** Device and inode of each protected root that exists, with its index in `roots`. */
  ids: Array<[dev: number, ino: number, root: number]>;
}

/**
 * Beyond this many path-like strings in one call, Countersign does not try to follow every symlink: the
 * call is treated as naming a protected path (it asks), rather than being let through unchecked.
 */
const MAX_FOLLOWED = 2000;
/** The walk for hard links into protected folders stops here; a file with several names then asks. */
const MAX_INDEXED = 20_000;
const MAX_INDEX_DEPTH = 8;

const OVERFLOW = (what: string): ProtectedMatch => ({ kind: 'inside', what, root: '', text: '' });

/** What one lstat found (null: nothing there, or nothing the server could reach either). */
interface Entry {
  link: boolean;
  dev: number;
  ino: number;
  nlink: number;
  file: boolean;
  dir: boolean;
}

function entryOf(st: Stats | undefined): Entry | null {
  return st ? { link: st.isSymbolicLink(), dev: st.dev, ino: st.ino, nlink: st.nlink, file: st.isFile(), dir: st.isDirectory() } : null;
}

function lstatEntry(p: string): Entry | null {
  try {
    return entryOf(lstatSync(p, { throwIfNoEntry: false }));
  } catch {
    return null; // ENOTDIR, EACCES
  }
}

/** The environment variables a reading may expand: only those naming an absolute path (never secrets, never sent for nothing). */
export function pathVariables(...envs: Array<Record<string, string | undefined> | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const env of envs) {
    for (const [k, v] of Object.entries(env ?? {})) if (v && v.length < 4096 && (path.posix.isAbsolute(v) || path.win32.isAbsolute(v))) out[k] = v;
  }
  return out;
}

/**
 * The folders among a server's command arguments (`/srv/files`, `.`, `--root=/x`), resolved from its
 * folder: server-filesystem reads a relative path from each, and other servers from theirs.
 */
export function argumentFolders(args: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  for (const arg of args.slice(0, 64)) {
    for (const text of [arg, arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined]) {
      if (!text || (text.startsWith('-') && text === arg)) continue;
      const abs = path.resolve(cwd, text);
      try {
        if (statSync(abs).isDirectory() && !out.includes(abs)) out.push(abs);
      } catch {
        // not a folder here
      }
    }
  }
  return out;
}

export interface ScopeOptions {
  /** The server's argument folders (argumentFolders). */
  folders?: string[];
  /** The server's own environment, beside Countersign's. */
  serverEnv?: Record<string, string>;
  /** Countersign's own folder (default: this process's). */
  ownCwd?: string;
}

export function scopeFor(paths: readonly ProtectedPath[], cwd: string, env: NodeJS.ProcessEnv = process.env, opts: ScopeOptions = {}): ProtectScope {
  const roots = paths
    .filter((p) => p.path)
    .map((p) => {
      const abs = path.resolve(p.path);
      return { ...p, path: abs, forms: [...new Set([abs, realpathOfExisting(abs)])] };
    });
  const ids: ProtectScope['ids'] = [];
  roots.forEach((root, i) => {
    try {
      const st = statSync(root.path);
      ids.push([st.dev, st.ino, i]);
    } catch {
      // not there yet: its names are matched as written
    }
  });
  const home = env.HOME || env.USERPROFILE || os.homedir();
  const server = path.resolve(cwd);
  const knownBases = [...new Set([server, ...(opts.folders ?? [])])];
  const bases = [...new Set([...knownBases, home, path.resolve(opts.ownCwd ?? process.cwd())])];
  return { roots, cwd: server, bases, known: knownBases.length, home, env: pathVariables(env, opts.serverEnv), platform: process.platform, ids };
}

/**
 * The real path of an absolute, normalised path: the longest part that exists with symlinks followed,
 * then the rest as written.
 */
export function realpathOfExisting(p: string): string {
  return new Walker(undefined).real(p, new Set());
}

/** A folder with symlinks followed, when it exists. */
export function realFolder(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** What is worked out once per scope (a `connect` lease's, or the broker's cached one). */
interface Prepared {
  /** The scope is about this machine: its files can be looked at. */
  native: boolean;
  /** Each base folder with symlinks followed: the server resolves from the folder it started in. */
  realBases: string[];
  /** The root a base lies in by inode (a bind mount or another name of a protected folder), if any. */
  baseHits: Array<Set<number>>;
  byIno: Map<number, Array<[dev: number, root: number]>>;
  /** Files with more than one name inside protected folders, by `dev:ino` (made when first needed). */
  links?: { ids: Map<string, number>; overflow: boolean };
}

const prepared = new WeakMap<ProtectScope, Prepared>();

function prepare(scope: ProtectScope): Prepared {
  let ready = prepared.get(scope);
  if (ready) return ready;
  const byIno = new Map<number, Array<[number, number]>>();
  for (const [dev, ino, root] of scope.ids ?? []) {
    const list = byIno.get(ino) ?? [];
    list.push([dev, root]);
    byIno.set(ino, list);
  }
  const native = scope.platform === process.platform;
  ready = { native, realBases: scope.bases, baseHits: scope.bases.map(() => new Set<number>()), byIno };
  if (native) {
    const walker = new Walker(scope, ready);
    ready.realBases = scope.bases.map((base, i) => walker.real(base, ready!.baseHits[i]!));
  }
  prepared.set(scope, ready);
  return ready;
}

const linkIndexes = new Map<string, { at: number; index: NonNullable<Prepared['links']> }>();

/**
 * Hard links into the protected folders: the files there with more than one name (kept a second, for
 * every scope with the same folders: `connect` gets a new scope with each lease). Installed packages'
 * `node_modules` are not walked: a link into them is made only by a tool that can write anywhere anyway.
 */
function linkIndex(scope: ProtectScope): NonNullable<Prepared['links']> {
  const key = JSON.stringify(scope.roots.map((r) => r.path));
  const kept = linkIndexes.get(key);
  if (kept && monotonicMs() - kept.at < 1000) return kept.index;
  if (linkIndexes.size > 16) linkIndexes.clear();
  const index = walkLinks(scope);
  linkIndexes.set(key, { at: monotonicMs(), index });
  return index;
}

function walkLinks(scope: ProtectScope): NonNullable<Prepared['links']> {
  const ids = new Map<string, number>();
  let seen = 0;
  let overflow = false;
  scope.roots.forEach((root, i) => {
    if (root.runs) return;
    const queue: Array<[string, number]> = [[root.path, 0]];
    while (queue.length && !overflow) {
      const [dir, depth] = queue.shift()!;
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue; // not a folder, or gone
      }
      for (const name of names) {
        if (++seen > MAX_INDEXED) {
          overflow = true;
          break;
        }
        const p = path.join(dir, name);
        const e = lstatEntry(p);
        if (!e) continue;
        if (e.file && e.nlink > 1) ids.set(`${e.dev}:${e.ino}`, i);
        else if (e.dir && name !== 'node_modules') {
          if (depth + 1 < MAX_INDEX_DEPTH) queue.push([p, depth + 1]);
          else overflow = true;
        }
      }
    }
  });
  return { ids, overflow };
}

/** Looks at paths on disk for one call, with one lstat per path (cached) and inode checks on the way. */
class Walker {
  private readonly cache = new Map<string, Entry | null>();
  /** A file with several names where the protected folders could not all be indexed. */
  unindexedLink = false;

  constructor(
    private readonly scope: ProtectScope | undefined,
    private readonly ready?: Prepared,
  ) {}

  entry(p: string): Entry | null {
    let e = this.cache.get(p);
    if (e === undefined) this.cache.set(p, (e = lstatEntry(p)));
    return e;
  }

  /** `name` in `dir`, or the name in its other Unicode form when only that exists (server-filesystem matches either). */
  child(dir: string, name: string): [string, Entry | null] {
    const p = dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
    const e = this.entry(p);
    if (e || /^[\x00-\x7f]*$/.test(name)) return [p, e];
    for (const alt of [name.normalize('NFC'), name.normalize('NFD')]) {
      if (alt === name) continue;
      const q = dir.endsWith(path.sep) ? dir + alt : dir + path.sep + alt;
      const f = this.entry(q);
      if (f) return [q, f];
    }
    return [p, e];
  }

  /** Records the protected roots this existing file or folder is, by device and inode. */
  idHits(e: Entry, hits: Set<number>, leaf: boolean): void {
    const ready = this.ready;
    if (!ready || e.link) return;
    for (const [dev, root] of ready.byIno.get(e.ino) ?? []) if (dev === e.dev) hits.add(root);
    if (leaf && e.file && e.nlink > 1 && this.scope) {
      ready.links ??= linkIndex(this.scope);
      const root = ready.links.ids.get(`${e.dev}:${e.ino}`);
      if (root !== undefined) hits.add(root);
      else if (ready.links.overflow) this.unindexedLink = true;
    }
  }

  /**
   * The real path of an absolute, normalised path: the longest part that exists with symlinks followed,
   * then the rest as written. Walks down from the root with lstat, asks for a realpath only when a
   * symlink is on the way, and adds to `hits` every protected root a part of it is by inode.
   */
  real(p: string, hits: Set<number>, hops = 0): string {
    const root = path.parse(p).root;
    const parts = p.slice(root.length).split(path.sep).filter(Boolean);
    let existing = root;
    let used = 0;
    let linked = false;
    let last: Entry | null = null;
    for (const part of parts) {
      const [next, e] = this.child(existing, part);
      if (!e) break;
      if (e.link) linked = true;
      else this.idHits(e, hits, used === parts.length - 1);
      existing = next;
      last = e;
      used++;
    }
    const rest = parts.slice(used);
    if (!linked) return rest.length ? path.join(existing, ...rest) : existing;
    if (hops > 40) return p;
    try {
      const real = path.join(realpathSync.native(existing), ...rest);
      // The target's own parts, for their inodes (cached; no symlink is left on the way).
      return hops > 0 || real === p ? real : this.real(real, hits, hops + 1);
    } catch {
      // A dangling link (to a file not made yet): follow it by hand, so it still names its target.
      if (!last?.link) return p;
      let target: string;
      try {
        target = readlinkSync(existing);
      } catch {
        return p;
      }
      return this.real(path.resolve(path.dirname(existing), target, ...rest), hits, hops + 1);
    }
  }
}

/**
 * A name read as a file in each base folder, unchanged by any other reading: no separator, no leading
 * `~ $ %`, not `.` or `..`, no `file:`, no quote or `%`, nothing trimmed. POSIX only.
 */
const PLAIN_NAME = /^(?![~$%]|\.\.?$|file:)[^\s/\\'"%](?:[^/\\'"%]*[^\s/\\'"%])?$/i;

export interface FindOptions {
  /** Tests: resolve plain names by the full walk too, to check the quick path against it. */
  walkEveryName?: boolean;
}

/**
 * Every protected file or folder a call's arguments name, and whether they run Countersign's CLI. The
 * server's folders are looked at once per scope (a `connect` lease's, or the broker's for a second): a
 * plain name then costs one lstat per folder.
 */
export function findProtected(args: unknown, scope: ProtectScope, opts: FindOptions = {}): ProtectedMatch[] {
  const found: ProtectedMatch[] = [];
  const cli = cliRun(args);
  if (cli.excerpt !== undefined) found.push({ kind: 'runs', what: "Countersign's command line", root: '', text: cli.excerpt });
  if (!cli.complete) return [...found, OVERFLOW('more of the arguments than Countersign checks in one call')];
  if (!scope.roots.length) return found;
  const { texts, complete } = pathCandidates(args);
  if (!complete || texts.length > MAX_FOLLOWED) {
    return [...found, OVERFLOW(`more path-like values than Countersign checks in one call (${texts.length}${complete ? '' : ' or more'})`)];
  }
  const ready = prepare(scope);
  const walker = new Walker(scope, ready);
  const quick = ready.native && path.sep === '/' && !opts.walkEveryName;
  // From a folder the server reads from, a folder above a protected file counts; from home or
  // Countersign's folder (a guess), only the file itself.
  const known: ResolvedCandidate[] = [];
  const guessed: ResolvedCandidate[] = [];
  const byInode: Array<[number, string]> = [];
  let unread = false;
  for (const text of texts) {
    const forms = [new Set<string>(), new Set<string>()];
    const hits = new Set<number>();
    const follow = (abs: string, into: Set<string>): void => {
      into.add(abs);
      if (ready.native) into.add(walker.real(abs, hits));
    };
    if (quick && PLAIN_NAME.test(text)) {
      // A plain name (most keys and values): that name in each base, as absoluteForms and the walk would find it.
      scope.bases.forEach((base, i) => {
        const into = forms[i < scope.known ? 0 : 1]!;
        into.add(base.endsWith('/') ? base + text : `${base}/${text}`);
        for (const r of ready.baseHits[i]!) hits.add(r);
        const [real, e] = walker.child(ready.realBases[i]!, text);
        if (e?.link) into.add(walker.real(real, hits));
        else {
          into.add(real);
          if (e) walker.idHits(e, hits, true);
        }
      });
    } else {
      const read = absoluteForms(text, scope);
      if (!read.complete) unread = true;
      for (const abs of read.known) follow(abs, forms[0]!);
      for (const abs of read.guessed) follow(abs, forms[1]!);
    }
    if (forms[0]!.size) known.push({ text, forms: [...forms[0]!] });
    if (forms[1]!.size) guessed.push({ text, forms: [...forms[1]!] });
    for (const r of hits) byInode.push([r, text]);
  }
  for (const [r, text] of byInode) {
    const root = scope.roots[r]!;
    found.push({ kind: root.runs ? 'runs' : 'inside', what: root.what, root: root.path, text });
  }
  if (walker.unindexedLink) found.push(OVERFLOW('a file with more than one name (a hard link), where Countersign cannot tell which'));
  if (unread) found.push(OVERFLOW('a path with more readings than Countersign checks'));
  const compare = { sep: pathFor(scope.platform).sep, caseInsensitive: scope.platform === 'darwin' || scope.platform === 'win32' };
  const lexical = [...matchProtected(known, scope.roots, compare), ...matchProtected(guessed, scope.roots, compare).filter((m) => m.kind !== 'ancestor')];
  const seen = new Set(found.map((m) => `${m.kind}\0${m.root}\0${m.text}`));
  for (const m of lexical) {
    const key = `${m.kind}\0${m.root}\0${m.text}`;
    if (!seen.has(key)) found.push(m);
    seen.add(key);
  }
  return found.sort((a, b) => ((a.kind === 'ancestor') === (b.kind === 'ancestor') ? 0 : a.kind === 'ancestor' ? 1 : -1));
}
