// Content-addressed blobs of the snapshot store (`snapshots/blobs/ab/<sha256>`): the same bytes kept
// once. A blob is a copy-on-write clone of the file where the file system offers one (FICLONE, or
// clonefile on APFS, both through COPYFILE_FICLONE), else a copy; synced, file and folder, before its
// call goes on. Its hash is checked on every read, so a blob edited by hand is refused, never restored.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { hashFile } from './safe-path.js';

export class BlobTampered extends Error {
  override name = 'BlobTampered';
}

const HASH = /^[0-9a-f]{64}$/;

export class BlobStore {
  constructor(readonly dir: string) {}

  pathOf(hash: string): string {
    if (!HASH.test(hash)) throw new BlobTampered(`"${hash}" is not a snapshot hash.`);
    return path.join(this.dir, hash.slice(0, 2), hash);
  }

  /**
   * Keeps the bytes of `src` (a regular file, already checked not to be a link); returns their hash and
   * size, both of the copy (the file may change while it is copied: the two must describe the same bytes).
   */
  async putFile(src: string, opts: { sync?: boolean } = {}): Promise<{ hash: string; size: number }> {
    const tmp = await this.#tmp();
    try {
      await fs.promises.copyFile(src, tmp, fs.constants.COPYFILE_FICLONE);
      const { size } = await fs.promises.stat(tmp);
      return { hash: await this.#settle(tmp, await hashFile(tmp), opts.sync !== false), size };
    } finally {
      await fs.promises.rm(tmp, { force: true });
    }
  }

  /** Keeps bytes held in memory (an undo's own before-state is read, then kept). */
  async putBytes(bytes: Uint8Array): Promise<string> {
    const tmp = await this.#tmp();
    try {
      await fs.promises.writeFile(tmp, bytes, { mode: 0o600 });
      return await this.#settle(tmp, createHash('sha256').update(bytes).digest('hex'));
    } finally {
      await fs.promises.rm(tmp, { force: true });
    }
  }

  /** The bytes of a blob, refused when they are not what the hash says. */
  async read(hash: string): Promise<Buffer> {
    let bytes: Buffer;
    try {
      bytes = await fs.promises.readFile(this.pathOf(hash));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobTampered(`The snapshot ${hash.slice(0, 12)} is missing from the store.`);
      throw err;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== hash) {
      throw new BlobTampered(`The snapshot ${hash.slice(0, 12)} was changed on disk since it was kept, so Countersign will not restore it.`);
    }
    return bytes;
  }

  async size(hash: string): Promise<number> {
    try {
      return (await fs.promises.stat(this.pathOf(hash))).size;
    } catch {
      return 0;
    }
  }

  async remove(hash: string): Promise<void> {
    await fs.promises.rm(this.pathOf(hash), { force: true });
  }

  async #tmp(): Promise<string> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    return path.join(this.dir, `.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  }

  /** fsync the copy, move it to its name (kept once), fsync its folder. */
  async #settle(tmp: string, hash: string, sync = true): Promise<string> {
    if (sync) {
      const fh = await fs.promises.open(tmp, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    const dest = this.pathOf(hash);
    const folder = path.dirname(dest);
    await fs.promises.mkdir(folder, { recursive: true, mode: 0o700 });
    await fs.promises.chmod(tmp, 0o600);
    await fs.promises.rename(tmp, dest);
    if (sync) await syncDir(folder);
    return hash;
  }
}

/** fsync a folder, so a rename or new file in it survives a crash. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fs.promises.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Whether this folder's file system clones (COPYFILE_FICLONE_FORCE succeeds). */
export function clonesHere(dir: string): boolean {
  const a = path.join(dir, `.clone-probe-${process.pid}`);
  const b = `${a}.b`;
  try {
    fs.writeFileSync(a, 'x');
    fs.copyFileSync(a, b, fs.constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(a, { force: true });
    fs.rmSync(b, { force: true });
  }
}
