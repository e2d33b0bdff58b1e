// One JSON file of Countersign's state, done one way: parsed and checked with a zod schema (after an
// optional migration from an older format), cached until the file changes on disk, written whole and
// atomically (temp file, fsync, rename; leftovers of killed writes: tmp-cleanup.ts), and, when it
// cannot be read or fails its schema, moved aside (never deleted) with a warning, starting from empty.
// A read-only or vanished folder never throws out of a read: the file is then treated as empty.
import fs from 'node:fs';
import type { z } from 'zod';
import { moveAside, writeFileAtomicSync } from '../atomic-file.js';
import { FileVersion } from '../file-version.js';

export interface JsonFileOptions<T> {
  path: string;
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  empty(): T;
  /** Brings an older format up to this one before the schema check (throw to reject the file). */
  migrate?(raw: unknown): unknown;
  /** The warning when the file was unreadable: why, and where it went (undefined: it could not be moved). */
  lost(reason: string, movedTo: string | undefined): string;
  warn(text: string): void;
}

export class JsonFile<T> {
  readonly path: string;
  readonly #version: FileVersion;
  #cache?: { key: string; data: T };

  constructor(private readonly opts: JsonFileOptions<T>) {
    this.path = opts.path;
    this.#version = new FileVersion(opts.path);
  }

  /** The file's content, or empty() when there is none (or it was unreadable and moved aside). */
  read(): T {
    const key = this.#version.current();
    if (key === undefined) return this.opts.empty();
    if (this.#cache?.key === key) return this.#cache.data;
    let data: T;
    try {
      const raw: unknown = JSON.parse(fs.readFileSync(this.path, 'utf8'));
      data = this.opts.schema.parse(this.opts.migrate ? this.opts.migrate(raw) : raw);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.opts.empty();
      this.#setAside((error as Error).message.split('\n')[0] ?? 'unreadable');
      return this.opts.empty();
    }
    this.#cache = { key, data };
    return data;
  }

  /** Checked against the schema, then written whole. Throws when the disk refuses (nothing changes then). */
  write(data: T): void {
    const checked = this.opts.schema.parse(data);
    writeFileAtomicSync(this.path, JSON.stringify(checked, null, 1) + '\n');
    this.#cache = undefined;
    this.#version.invalidate();
  }

  #setAside(reason: string): void {
    let moved: string | undefined;
    try {
      moved = moveAside(this.path);
    } catch {
      moved = undefined; // a read-only folder: the file stays, and is ignored until it is fixed
    }
    this.#version.invalidate();
    this.opts.warn(this.opts.lost(reason, moved));
  }
}
