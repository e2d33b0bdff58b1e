// Self-protection, the resolving half: turns what a call's arguments say into the files they name, as
// the server would read them (home, file:// URIs, the server's own folder, `..`, symlinks followed as
// far as the path exists), and matches them against Countersign's own files and the clients' configs.
// A match makes the call critical: it always asks, whatever rule, lease, allowance or trust says.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  matchProtected, pathCandidates, type ProtectedMatch, type ProtectedPath, type ProtectedRoot, type ResolvedCandidate,
} from '../../shared/protected-paths.js';

export type { ProtectedMatch, ProtectedPath } from '../../shared/protected-paths.js';

/** What a check needs, as plain data: `connect` gets it with a lease and checks leased calls itself. */
export interface ProtectScope {
  roots: ProtectedRoot[];
  /** The folder the server runs in: relative paths in its arguments are read from here. */
  cwd: string;
  home: string;
  platform: NodeJS.Platform;
}

/**
 * Beyond this many path-like strings in one call, Countersign does not try to follow every symlink: the
 * call is treated as naming a protected path (it asks), rather than being let through unchecked.
 */
const MAX_FOLLOWED = 2000;

type Seen = 'missing' | 'link' | 'other';

function lstatKind(p: string, cache: Map<string, Seen>): Seen {
  let kind = cache.get(p);
  if (kind === undefined) {
    try {
      const st = lstatSync(p, { throwIfNoEntry: false });
      kind = !st ? 'missing' : st.isSymbolicLink() ? 'link' : 'other';
    } catch {
      kind = 'missing'; // ENOTDIR, EACCES: nothing the server could reach there either
    }
    cache.set(p, kind);
  }
  return kind;
}

/**
 * The real path of an absolute, normalised path: the longest part that exists with symlinks followed,
 * then the rest as written. Walks down from the root with lstat, and asks for a realpath only when a
 * symlink is on the way. `cache` (one per call) saves the syscalls of paths that share folders.
 */
export function realpathOfExisting(p: string, cache: Map<string, Seen> = new Map(), hops = 0): string {
  const root = path.parse(p).root;
  const parts = p.slice(root.length).split(path.sep).filter(Boolean);
  let existing = root;
  let used = 0;
  let linked = false;
  for (const part of parts) {
    const next = path.join(existing, part);
    const kind = lstatKind(next, cache);
    if (kind === 'missing') break;
    if (kind === 'link') linked = true;
    existing = next;
    used++;
  }
  if (!linked) return p;
  try {
    return path.join(realpathSync.native(existing), ...parts.slice(used));
  } catch {
    // A dangling link (to a file not made yet): follow it by hand, so it still names its target.
    if (hops > 40 || lstatKind(existing, cache) !== 'link') return p;
    let target: string;
    try {
      target = readlinkSync(existing);
    } catch {
      return p;
    }
    return realpathOfExisting(path.resolve(path.dirname(existing), target, ...parts.slice(used)), cache, hops + 1);
  }
}

/**
 * realpathOfExisting of `base` joined with `rest`, where `base` is a folder known to exist with no symlink
 * on its way: only what follows it is looked at (a symlink there: the full walk).
 */
function realpathUnder(base: string, rest: string, cache: Map<string, Seen>): string {
  const parts = rest.split(path.sep).filter(Boolean);
  let existing = base;
  for (const part of parts) {
    const next = path.join(existing, part);
    const kind = lstatKind(next, cache);
    if (kind === 'missing') break;
    if (kind === 'link') return realpathOfExisting(path.join(base, ...parts), cache);
    existing = next;
  }
  return path.join(base, ...parts);
}

/** A folder with symlinks followed, when it exists. */
export function realFolder(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

const realCwds = new WeakMap<ProtectScope, string | null>();

/**
 * The scope's server folder with symlinks followed, found once per scope (a `connect` lease's, or the
 * broker's cached one): the server already runs there, so findProtected then looks only at what follows it.
 */
export function realCwdOf(scope: ProtectScope): string | undefined {
  let real = realCwds.get(scope);
  if (real === undefined) realCwds.set(scope, (real = realFolder(scope.cwd) ?? null));
  return real ?? undefined;
}

export function scopeFor(paths: readonly ProtectedPath[], cwd: string, env: NodeJS.ProcessEnv = process.env): ProtectScope {
  const roots = paths
    .filter((p) => p.path)
    .map((p) => {
      const abs = path.resolve(p.path);
      return { ...p, path: abs, forms: [...new Set([abs, realpathOfExisting(abs)])] };
    });
  return { roots, cwd: path.resolve(cwd), home: env.HOME || env.USERPROFILE || os.homedir(), platform: process.platform };
}

/** The absolute path a server would read for `text`, as written (no symlinks followed); undefined when it names no local file. */
export function resolveAsServer(text: string, scope: Pick<ProtectScope, 'cwd' | 'home'>): string | undefined {
  let p = text.trim();
  if (!p) return undefined;
  if (/^file:/i.test(p)) {
    try {
      p = fileURLToPath(p);
    } catch {
      return undefined;
    }
  }
  p = p
    .replace(/^~(?=$|[\\/])/, scope.home)
    .replace(/^\$\{?HOME\}?(?=$|[\\/])/, scope.home)
    .replace(/^%(USERPROFILE|HOMEPATH)%/i, scope.home);
  return path.resolve(scope.cwd, p);
}

/**
 * A name resolveAsServer reads as a file in the server's folder, unchanged: no separator, no leading
 * `~ $ %`, not `.` or `..`, no `file:`, nothing trimmed (JavaScript's \s is what trim() removes). On
 * POSIX only `/` separates, so any other text qualifies ("hello world", most values); elsewhere only
 * word characters (a drive letter, `\` and `:` have meanings there).
 */
const PLAIN_NAME = path.sep === '/' ? /^(?![~$%]|\.\.?$|file:)[^\s/](?:[^/]*[^\s/])?$/i : /^[\w@+-][\w@+.-]*$/;

function joinName(folder: string, name: string): string {
  return folder.endsWith(path.sep) ? folder + name : folder + path.sep + name;
}

/**
 * Every protected file or folder a call's arguments name. `realCwd`: the server's folder with symlinks
 * followed, when the caller knows it for a server already running there (`connect`, once per lease): a
 * relative path then costs the lstats of its own parts only. The server resolves relative paths from the
 * folder it started in, whatever happens to that folder's path later.
 */
export function findProtected(args: unknown, scope: ProtectScope, realCwd?: string): ProtectedMatch[] {
  if (!scope.roots.length) return [];
  const texts = pathCandidates(args);
  if (texts.length > MAX_FOLLOWED) {
    return [{ kind: 'inside', what: `more path-like values than Countersign checks in one call (${texts.length})`, root: '', text: '' }];
  }
  const cache = new Map<string, Seen>();
  const candidates: ResolvedCandidate[] = [];
  for (const text of texts) {
    if (realCwd !== undefined && PLAIN_NAME.test(text)) {
      // A plain name (most keys and values): the file of that name in the server's folder, as
      // resolveAsServer and realpathUnder would find it, without their string work.
      const abs = joinName(scope.cwd, text);
      const next = joinName(realCwd, text);
      const kind = lstatKind(next, cache);
      const real = kind === 'link' ? realpathOfExisting(next, cache) : next;
      candidates.push({ text, forms: real === abs ? [abs] : [abs, real] });
      continue;
    }
    const abs = resolveAsServer(text, scope);
    if (!abs) continue;
    const underCwd = realCwd !== undefined && (abs === scope.cwd || abs.startsWith(scope.cwd.endsWith(path.sep) ? scope.cwd : scope.cwd + path.sep));
    const real = underCwd ? realpathUnder(realCwd, abs.slice(scope.cwd.length), cache) : realpathOfExisting(abs, cache);
    candidates.push({ text, forms: real === abs ? [abs] : [abs, real] });
  }
  return matchProtected(candidates, scope.roots, {
    sep: path.sep,
    caseInsensitive: scope.platform === 'darwin' || scope.platform === 'win32',
  });
}
