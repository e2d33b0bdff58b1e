// A write the disk refused (a read-only file system, no permission, an immutable folder, a full disk)
// as a sentence: which path, why, and how to fix it. The CLI prints it instead of a stack trace, and
// `doctor` uses the same words for the data folder.
import { accessSync, constants, existsSync, statfsSync, statSync } from 'node:fs';
import path from 'node:path';

const DISK_CODES = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT']);

export class DiskError extends Error {
  override name = 'DiskError';

  constructor(
    readonly path: string,
    readonly code: string,
    readonly why: string,
    readonly fix: string,
  ) {
    super(`${why} Fix: ${fix}`);
  }
}

/** Single-quoted for a POSIX shell when it needs quotes. */
function q(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

function isWithin(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The nearest folder of `p` that exists: where a write would have to happen. */
function existingFolder(p: string): string {
  let dir = p;
  try {
    if (statSync(dir).isDirectory()) return dir;
  } catch {
    // not there (yet)
  }
  for (dir = path.dirname(p); !existsSync(dir) && path.dirname(dir) !== dir; dir = path.dirname(dir));
  return dir;
}

function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function elsewhere(dataDir: string | undefined): string {
  return dataDir ? `use a data folder elsewhere: --data-dir <DIR> (or set COUNTERSIGN_HOME)` : 'write it elsewhere';
}

/** Why this process may not write `dir`, and the command that lets it. */
function permission(dir: string, code: string, dataDir: string | undefined): { why: string; fix: string } {
  const uid = process.getuid?.();
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(dir);
  } catch {
    st = undefined;
  }
  const mode = st ? (Number(st.mode) & 0o777).toString(8).padStart(4, '0') : undefined;
  const target = dataDir && isWithin(dir, dataDir) ? dataDir : dir;
  // The data folder does not exist yet and its parent is not ours: make the folder, never take the parent.
  const make =
    dataDir && !isWithin(dir, dataDir) && isWithin(dataDir, dir)
      ? `create the data folder for this user: sudo install -d -m 700 -o "$(id -u)" ${q(dataDir)}`
      : undefined;
  if (st && uid !== undefined && Number(st.uid) !== uid && uid !== 0) {
    return {
      why: `${dir} belongs to another user (uid ${st.uid}, mode ${mode}) and this process runs as uid ${uid}.`,
      fix: `${make ?? `sudo chown -R "$(id -u)" ${q(target)}`}, or ${elsewhere(dataDir)}`,
    };
  }
  let writable = false;
  try {
    accessSync(dir, constants.W_OK);
    writable = true;
  } catch {
    writable = false;
  }
  if (!writable && st && !(Number(st.mode) & 0o200)) {
    return { why: `${dir} is read-only (mode ${mode}).`, fix: `${make ?? `chmod u+w ${q(dir)}`}, or ${elsewhere(dataDir)}` };
  }
  if (code === 'EPERM' || (st && Number(st.mode) & 0o200)) {
    // The mode allows it, yet the write was refused: an immutable flag, a sandbox, or a security module.
    return {
      why: `${dir} refuses writes though its mode (${mode ?? 'unknown'}) allows them: it may be immutable (chattr +i), or a sandbox or security policy forbids it.`,
      fix: `see lsattr -d ${q(dir)} and, if it shows i, sudo chattr -i ${q(dir)}; or ${elsewhere(dataDir)}`,
    };
  }
  return { why: `this process (uid ${uid ?? 'unknown'}) may not write ${dir}.`, fix: `give it write access (chmod u+w ${q(dir)}), or ${elsewhere(dataDir)}` };
}

/**
 * The error as a DiskError when it is a refused write (EROFS, EACCES, EPERM, ENOSPC, EDQUOT);
 * undefined otherwise. `dataDir`: for errors that name no path (a full disk while writing) and the fix.
 */
export function explainDiskError(err: unknown, dataDir?: string): DiskError | undefined {
  const e = err as (NodeJS.ErrnoException & { address?: string; dest?: string }) | undefined;
  if (!e || typeof e.code !== 'string' || !DISK_CODES.has(e.code)) return undefined;
  // An atomic write's temp file (atomic-file.ts) stands for the file it was to become.
  const given = (e.path ?? e.address ?? dataDir)?.replace(/\.\d+\.[0-9a-f]{8}\.tmp$/, '');
  if (!given) return undefined;
  const dir = existingFolder(given);
  const isData = dataDir !== undefined && path.resolve(given) === path.resolve(dataDir);
  const what = isData ? `its data folder ${given}` : given;
  const inData = !isData && dataDir && isWithin(given, dataDir) ? ` (in Countersign's data folder ${dataDir})` : '';
  switch (e.code) {
    case 'EROFS':
      return new DiskError(
        given,
        e.code,
        `Countersign cannot write ${what}${inData}: it is on a read-only file system.`,
        `${elsewhere(dataDir)}, or remount that disk read-write`,
      );
    case 'ENOSPC':
    case 'EDQUOT': {
      const free = freeBytes(dir);
      const full = e.code === 'EDQUOT' ? 'your disk quota there is used up' : `the disk holding it is full${free === undefined ? '' : ` (${size(free)} free)`}`;
      return new DiskError(
        given,
        e.code,
        `Countersign cannot write ${what}${inData}: ${full}.`,
        `free some space on that disk (df -h ${q(dir)} shows it), or ${elsewhere(dataDir)}`,
      );
    }
    default: {
      const { why, fix } = permission(dir, e.code, dataDir);
      return new DiskError(given, e.code, `Countersign cannot write ${what}${inData}: ${why}`, fix);
    }
  }
}

/** Why this user cannot open `dir` (another user's, or no search permission); undefined when it can. */
export function folderClosedText(dir: string): string | undefined {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
    return undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  }
  let owner = '';
  try {
    const st = statSync(dir);
    owner = `: it belongs to uid ${st.uid} (mode ${(Number(st.mode) & 0o777).toString(8).padStart(4, '0')})`;
  } catch {
    // cannot even look at it
  }
  return `this user (uid ${process.getuid?.() ?? 'unknown'}) cannot open Countersign's data folder ${dir}${owner}. Run the command as the user who runs Countersign, or use a data folder of your own: --data-dir <DIR>.`;
}
