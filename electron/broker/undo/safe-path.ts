// Paths undo may touch, without following a symbolic link anywhere: each component is looked at with
// lstat, and files are opened with O_NOFOLLOW. A link swapped in after the call (for the file, or for
// a folder on its way) makes undo refuse, so it never writes outside the path the call changed.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileState } from '../../../shared/undo.js';

export class SymlinkRefused extends Error {
  override name = 'SymlinkRefused';
}

/**
 * The path with its folders resolved (realpath of the nearest existing folder): what the snapshot
 * records, so a link that was on the way when the call ran is not followed later either.
 */
export function resolvedPath(p: string): string {
  const abs = path.resolve(p);
  const parent = path.dirname(abs);
  if (parent === abs) return abs;
  try {
    return path.join(fs.realpathSync.native(parent), path.basename(abs));
  } catch {
    return path.join(resolvedPath(parent), path.basename(abs));
  }
}

/** Throws SymlinkRefused when any folder on the way to `p` (or `p` itself, unless allowed) is a link. */
export function checkNoLinks(p: string, opts: { leaf?: boolean } = {}): void {
  const abs = path.resolve(p);
  const parts = abs.split(path.sep).filter(Boolean);
  let at = path.parse(abs).root;
  for (let i = 0; i < parts.length; i++) {
    at = path.join(at, parts[i]!);
    const last = i === parts.length - 1;
    if (last && opts.leaf === false) return;
    let st: fs.Stats;
    try {
      st = fs.lstatSync(at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // nothing further can be a link
      throw err;
    }
    if (st.isSymbolicLink()) throw new SymlinkRefused(`${at} is now a symbolic link, so undo does not follow it (it would write outside ${abs}).`);
    if (!last && !st.isDirectory()) throw new SymlinkRefused(`${at} is no longer a folder.`);
  }
}

/** The state of a path, never following a link. `hashUpTo`: files larger are described, not hashed. */
export async function stateOf(p: string, hashUpTo = Number.POSITIVE_INFINITY): Promise<FileState> {
  let st: fs.Stats;
  try {
    st = await fs.promises.lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return { kind: 'missing' };
    throw err;
  }
  const mode = st.mode & 0o7777;
  if (st.isSymbolicLink()) return { kind: 'other', what: 'a symbolic link' };
  if (st.isDirectory()) return { kind: 'dir', mode, entries: (await fs.promises.readdir(p)).sort() };
  if (!st.isFile()) return { kind: 'other', what: 'not a regular file' };
  if (st.size > hashUpTo) return { kind: 'file', size: st.size, mode, notKept: 'too-large' };
  return { kind: 'file', size: st.size, mode, hash: await hashFile(p) };
}

/** Up to this size a file is hashed off the main thread (WebCrypto runs in libuv's pool), whole. */
const DIGEST_WHOLE = 128 * 1024 * 1024;

/** sha256 of a file, read through O_NOFOLLOW, without holding the event loop. */
export async function hashFile(p: string): Promise<string> {
  const fh = await fs.promises.open(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    if ((await fh.stat()).size <= DIGEST_WHOLE) {
      const bytes = await fh.readFile();
      return Buffer.from(await crypto.subtle.digest('SHA-256', bytes)).toString('hex');
    }
    // Larger: in chunks, each a short hold of the main thread.
    const h = createHash('sha256');
    for await (const chunk of fh.createReadStream({ highWaterMark: 1 << 18, autoClose: false })) h.update(chunk as Buffer);
    return h.digest('hex');
  } finally {
    await fh.close();
  }
}

/** Reads a file's bytes without following a link. */
export async function readNoFollow(p: string): Promise<Buffer> {
  const fh = await fs.promises.open(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** Same content, mode and kind (a folder: a folder; what is in it is each file's own matter). */
export function sameState(a: FileState, b: FileState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.hash !== undefined && a.hash === b.hash && a.mode === b.mode;
  if (a.kind === 'other' && b.kind === 'other') return false;
  return true;
}
