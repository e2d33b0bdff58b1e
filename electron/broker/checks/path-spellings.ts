// Every absolute path one argument text may name, by every reading a server or a shell could give it:
// relative to any folder the server may read it from, `~` and `~user`, `$VAR`/`${VAR}`/`%VAR%`/`$env:VAR`,
// file:// URIs (any host, percent-encoded, encoded slashes), percent-encoded plain paths, `\` as `/`,
// /proc/<pid>/root and /proc/<pid>/cwd, and Windows' own aliases (`\\?\`, `\\.\`, `\\localhost\c$\`,
// drive-relative `C:x`, trailing dots and spaces, `:stream` suffixes). Lexical only: symlinks, hard
// links and other aliases on disk are self-protection.ts's walk.
import path from 'node:path';

/** What a reading needs to know, as plain data (a `connect` lease carries it). */
export interface SpellingScope {
  /** Folders a relative path may be read from: the server's folder first, then its argument folders, home, Countersign's own. */
  bases: string[];
  /**
   * How many of `bases` the server is known to read from (its folder and argument folders). From the
   * others (home, Countersign's folder) a path counts only when it names a protected file, not when it
   * names a folder above one: `.` there would otherwise be home, above the data folder, in every call.
   */
  known: number;
  home: string;
  /** Variables a shell or server may expand (HOME, XDG_*, APPDATA…), as Countersign sees them. */
  env: Record<string, string>;
  platform: NodeJS.Platform;
}

/** More readings than any honest path has: past this the text is reported as not fully read (it asks). */
const MAX_FORMS = 256;

export function pathFor(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Percent-decoding as a lenient server does it: `%2F` too, and bytes that are not UTF-8 one by one. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** The texts one argument may be read as, before any folder is applied. */
function readings(text: string, platform: NodeJS.Platform): string[] {
  const out = new Set<string>();
  const add = (t: string): void => {
    const trimmed = t.trim();
    if (!trimmed) return;
    out.add(trimmed);
    // server-filesystem strips one pair of quotes; so do many CLIs.
    const unquoted = trimmed.replace(/^(["'])(.*)\1$/s, '$2');
    if (unquoted !== trimmed && unquoted.trim()) out.add(unquoted.trim());
  };
  add(text);
  // Percent-encoding, decoded as often as a server might (twice-encoded `%252F` too).
  let decoded = text;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(decoded); i++) add((decoded = percentDecoded(decoded)));
  // A server may turn `\` into `/` (Windows habits); on Windows it already is a separator.
  if (platform !== 'win32') for (const t of [...out]) if (t.includes('\\')) add(t.replace(/\\/g, '/'));
  return [...out];
}

type Reading = { abs: string } | { rel: string };

/** A file: URI's path: any host (a remote one read as local too), query and fragment off or kept, `%2F` decoded. */
function fileUriPaths(uri: string, platform: NodeJS.Platform): string[] {
  let rest = uri.replace(/^file:/i, '');
  let host = '';
  if (/^[\\/]{2}/.test(rest)) {
    const m = /^[\\/]{2}([^\\/]*)(.*)$/s.exec(rest)!;
    host = m[1]!;
    rest = m[2]!;
  }
  const out = new Set<string>();
  for (const p of [rest, rest.replace(/[?#].*$/s, '')]) {
    let decoded = percentDecoded(p);
    if (platform === 'win32') {
      decoded = decoded.replace(/^[\\/]([A-Za-z]:)/, '$1');
      if (host && !/^(?:localhost|127\.0\.0\.1|::1|\[::1\])$/i.test(percentDecoded(host))) out.add(`\\\\${percentDecoded(host)}${decoded}`);
    }
    out.add(decoded);
  }
  return [...out];
}

function envValue(name: string, scope: SpellingScope, ignoreCase: boolean): string | undefined {
  if (Object.hasOwn(scope.env, name)) return scope.env[name];
  if (!ignoreCase) return undefined;
  const key = Object.keys(scope.env).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : scope.env[key];
}

const VARIABLE =
  /^(?:\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=]([^}]*)|[:?+][^}]*)?\}|\$(?!env:)([A-Za-z_][A-Za-z0-9_]*)|%([A-Za-z_][A-Za-z0-9_()]*)%|\$env:([A-Za-z_][A-Za-z0-9_]*))(.*)$/is;
const PROC_ALIAS = /^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(root|cwd)(?=\/|$)(.*)$/s;

/** The readings of one text: absolute paths, or paths to be read from every base folder. */
function expand(text: string, scope: SpellingScope, depth = 0): Reading[] {
  const p = pathFor(scope.platform);
  const win = scope.platform === 'win32';
  if (depth > 2) return [];
  if (/^file:/i.test(text)) return fileUriPaths(text, scope.platform).flatMap((t) => (t ? expand(t, scope, depth + 1) : []));
  const tilde = /^~([^\\/]*)(.*)$/s.exec(text);
  if (tilde) {
    const [, user, rest] = tilde as unknown as [string, string, string];
    if (user === '') return [{ abs: scope.home + rest }];
    // `~+` is the shell's folder, `~-` the one before; `~name` that user's home, which may be this
    // user's (any name for it) or a neighbour's: from every base, and beside this home.
    const out: Reading[] = [{ rel: `.${rest}` }, { abs: p.join(p.dirname(scope.home), user) + rest }];
    if (user === 'root') out.push({ abs: `/root${rest}` }, { abs: `/var/root${rest}` });
    return out;
  }
  const variable = VARIABLE.exec(text);
  if (variable) {
    const [, braced, fallback, plain, percent, powershell, rest] = variable as unknown as Array<string | undefined>;
    const name = (braced ?? plain ?? percent ?? powershell)!;
    const value = /^(?:HOME|USERPROFILE)$/i.test(name)
      ? scope.home
      : name === 'PWD'
        ? undefined
        : envValue(name, scope, win || percent !== undefined || powershell !== undefined);
    if (value) return expand(value + rest, scope, depth + 1);
    // Unknown (or the shell's own folder): its default (`${X:-$HOME/.config}`), the rest from every base,
    // and from the root (an unset variable is empty).
    return [...(fallback ? expand(fallback + rest, scope, depth + 1) : []), { rel: `.${rest}` }, ...(/^[\\/]/.test(rest!) ? [{ abs: rest! }] : [])];
  }
  if (!win) {
    const proc = PROC_ALIAS.exec(text);
    // Another process's root is / (and its folder any the server could be in); its own link is walked too.
    if (proc) return [{ abs: text }, proc[1] === 'root' ? { abs: proc[2] || '/' } : { rel: `.${proc[2]}` }];
  } else {
    // Device and long-path prefixes, and the local machine's admin shares, name the same files.
    const device = /^[\\/]{2}[?.][\\/](?:UNC[\\/])?(.*)$|^[\\/]\?\?[\\/](.*)$/is.exec(text);
    if (device) {
      const inner = device[1] ?? device[2]!;
      return expand(/^[A-Za-z]:/.test(inner) ? inner : `\\\\${inner}`, scope, depth + 1);
    }
    const share = /^[\\/]{2}(?:localhost|127\.0\.0\.1|\[?::1\]?|\.)[\\/]([A-Za-z])\$(.*)$/is.exec(text);
    if (share) return [{ abs: `${share[1]}:${share[2] || '\\'}` }];
    // `C:x` is x in that drive's current folder: from every base, and from the drive's root.
    const driveRelative = /^([A-Za-z]):(?![\\/])(.*)$/s.exec(text);
    if (driveRelative) return [{ abs: `${driveRelative[1]}:\\${driveRelative[2]}` }, { rel: driveRelative[2]! }];
  }
  return p.isAbsolute(text) ? [{ abs: text }] : [{ rel: text }];
}

/** Windows drops trailing dots and spaces from each name, and `name:stream` is a stream of `name`. */
function windowsForms(abs: string): string {
  const [root, ...parts] = abs.split('\\');
  return [root, ...parts.map((seg) => seg.replace(/:.*$/s, '').replace(/[. ]+$/, (m) => (seg === '.' || seg === '..' ? m : '')))].join('\\');
}

/**
 * Every absolute, normalised path `text` may name (lexically: no file is looked at): `known`, absolute or
 * from a folder the server reads from; `guessed`, only from home or Countersign's folder. `complete` is
 * false when the text has more readings than are made: the caller fails closed.
 */
export function absoluteForms(text: string, scope: SpellingScope): { known: string[]; guessed: string[]; complete: boolean } {
  const p = pathFor(scope.platform);
  const known = new Set<string>();
  const guessed = new Set<string>();
  const add = (set: Set<string>, f: string): boolean => {
    set.add(scope.platform === 'win32' ? windowsForms(f) : f);
    return known.size + guessed.size < MAX_FORMS;
  };
  const done = (complete: boolean) => {
    for (const f of known) guessed.delete(f);
    return { known: [...known], guessed: [...guessed], complete };
  };
  for (const reading of readings(text, scope.platform)) {
    for (const r of expand(reading, scope)) {
      if ('abs' in r) {
        if (!add(known, p.resolve(scope.bases[0] ?? p.sep, r.abs))) return done(false);
        continue;
      }
      for (let i = 0; i < scope.bases.length; i++) {
        if (!add(i < scope.known ? known : guessed, p.resolve(scope.bases[i]!, r.rel))) return done(false);
      }
    }
  }
  return done(true);
}
