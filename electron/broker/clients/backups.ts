// Backups of client config files, kept in the data dir (they may hold secrets: folder 0700, files 0600),
// with an index of every wrap: the file's hash before and after, and each wrapped entry's original and
// wrapped form, so unwrap can restore the exact bytes, or revert only Countersign's entries.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ClientId } from '../../../shared/clients.js';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { moveAside } from '../store/move-aside.js';
import type { EntryKey } from './dialects.js';

export interface EntryRecord {
  key: EntryKey;
  name: string;
  group?: string;
  server: string;
  originalValue: unknown;
  wrappedValue: unknown;
  /** The entry's text before and after the wrap, for an exact restore of the entry alone. */
  originalText?: string;
  wrappedText?: string;
}

export interface WrapRecord {
  id: string;
  client: ClientId;
  path: string;
  realPath: string;
  time: string;
  /** File name of the bytes before the wrap, in the backups folder. */
  backup: string;
  hashBefore: string;
  hashAfter: string;
  entries: EntryRecord[];
  /** Servers this wrap added to Countersign. */
  added: string[];
  unwrappedAt?: string;
}

interface Index {
  version: 1;
  records: WrapRecord[];
}

export class ClientBackups {
  readonly dir: string;
  private readonly indexPath: string;

  constructor(
    dataDir: string,
    private readonly warn: (text: string) => void = () => undefined,
  ) {
    this.dir = path.join(dataDir, 'client-backups');
    this.indexPath = path.join(this.dir, 'index.json');
  }

  private ensureDir(): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  private load(): Index {
    let text: string;
    try {
      text = fs.readFileSync(this.indexPath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, records: [] };
      throw err;
    }
    try {
      const index = JSON.parse(text) as Index;
      if (index.version === 1 && Array.isArray(index.records)) return index;
      throw new Error('not a version 1 index');
    } catch (err) {
      const moved = moveAside(this.indexPath);
      this.warn(
        `The index of client config backups could not be read (${(err as Error).message}); it was moved to ${moved}. The backups themselves are still in ${this.dir}.`,
      );
      return { version: 1, records: [] };
    }
  }

  private save(index: Index): void {
    this.ensureDir();
    writeFileAtomicSync(this.indexPath, JSON.stringify(index, null, 2) + '\n', 0o600);
  }

  records(): WrapRecord[] {
    return this.load().records;
  }

  /** Wraps of this file not yet undone, newest first. */
  active(realPath: string): WrapRecord[] {
    return this.records()
      .filter((r) => r.realPath === realPath && !r.unwrappedAt)
      .reverse();
  }

  /** Stores a copy of a file's bytes; returns the backup's file name. */
  keep(client: ClientId, file: string, bytes: Uint8Array, label: string): string {
    this.ensureDir();
    const stamp = new Date().toISOString().replace(/[:.]/g, '');
    const name = `${stamp}-${client}-${label}-${path.basename(file).replace(/[^\w.-]/g, '_')}-${randomBytes(3).toString('hex')}.bak`;
    writeFileAtomicSync(path.join(this.dir, name), bytes, 0o600);
    return name;
  }

  read(name: string): Buffer {
    if (name !== path.basename(name)) throw new Error(`not a backup name: ${name}`);
    return fs.readFileSync(path.join(this.dir, name));
  }

  /** Deletes a backup no record needs: one kept for a wrap that was rolled back, its file as it was. */
  discard(name: string): void {
    if (name !== path.basename(name)) throw new Error(`not a backup name: ${name}`);
    fs.rmSync(path.join(this.dir, name), { force: true });
  }

  pathOf(name: string): string {
    return path.join(this.dir, name);
  }

  add(record: WrapRecord): void {
    const index = this.load();
    index.records.push(record);
    this.save(index);
  }

  remove(id: string): void {
    const index = this.load();
    this.save({ ...index, records: index.records.filter((r) => r.id !== id) });
  }

  markUnwrapped(ids: string[], time: string): void {
    const index = this.load();
    for (const r of index.records) if (ids.includes(r.id)) r.unwrappedAt = time;
    this.save(index);
  }
}
