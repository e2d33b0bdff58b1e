// One JSON file of Countersign's state, done one way: parsed and checked with a zod schema (after an
// optional migration from an older format), cached until the file changes on disk, written whole and
// atomically (temp file, fsync, rename; leftovers of killed writes: tmp-cleanup.ts), and, when it
// cannot be read or fails its schema, moved aside (never deleted) with a warning, starting from empty.
// A read-only or vanished folder never throws out of a read: the file is then treated as empty.
import fs from 'node:fs';
import { ZodError, type z } from 'zod';
import { writeFileAtomicSync } from './atomic-file.js';
import { moveAside } from './move-aside.js';
import { FileVersion } from './file-version.js';

export interface JsonFileOptions<T> {
  path: string;
  schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  empty(): T;
  /** Brings an older format up to this one before the schema check (throw to reject the file); returns `raw` itself when it is current. */
  migrate?(raw: unknown): unknown;
  /**
   * The warning when the file was unreadable: why, and where it went. movedTo undefined: `stuck`, it
   * could not be moved (a read-only folder) and is ignored; else another process moved it first.
   */
  lost(reason: string, movedTo: string | undefined, stuck: boolean): string;
  warn(text: string): void;
}

export class JsonFile<T> {
  readonly path: string;
  readonly #version: FileVersion;
  #cache?: { key: string; data: T; current: boolean };
  /** The version of an unreadable file that could not be moved aside: warned once, never written over. */
  #stuck?: string;

  constructor(private readonly opts: JsonFileOptions<T>) {
    this.path = opts.path;
    this.#version = new FileVersion(opts.path);
  }

  /** The file's content, or empty() when there is none (or it was unreadable and moved aside). */
  read(): T {
    return this.#load()?.data ?? this.opts.empty();
  }

  /**
   * Writes the file when it is missing or in an older format (after a migration), so that what is on
   * disk is this format. Throws when the disk refuses; nothing is lost then (the file stays as it was).
   */
  settle(): void {
    const loaded = this.#load();
    if (!loaded) {
      if (this.#version.current() === undefined) this.write(this.opts.empty());
    } else if (!loaded.current) this.write(loaded.data);
  }

  /** Look at the disk on the next read, whenever the last look was (another process may write next). */
  recheck(): void {
    this.#version.invalidate();
  }

  /** Checked against the schema, then written whole. Throws when the disk refuses (nothing changes then). */
  write(data: T): void {
    const checked = this.opts.schema.parse(data);
    if (this.#stuck !== undefined && this.#stuck === this.#version.current()) {
      throw new Error(
        `${this.path} could not be read and could not be moved aside: nothing was saved, so that its content is not lost. Move it away, then try again.`,
      );
    }
    writeFileAtomicSync(this.path, JSON.stringify(checked, null, 1) + '\n');
    this.#cache = undefined;
    this.#version.invalidate();
  }

  #load(): { data: T; current: boolean } | undefined {
    const key = this.#version.current();
    if (key === undefined || key === this.#stuck) return undefined;
    if (this.#cache?.key === key) return this.#cache;
    let raw: unknown;
    let data: T;
    let current: boolean;
    try {
      raw = JSON.parse(fs.readFileSync(this.path, 'utf8'));
      const migrated = this.opts.migrate ? this.opts.migrate(raw) : raw;
      data = this.opts.schema.parse(migrated);
      current = migrated === raw;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      this.#setAside(key, reasonOf(error));
      return undefined;
    }
    this.#cache = { key, data, current };
    return this.#cache;
  }

  #setAside(key: string, reason: string): void {
    let moved: string | undefined;
    let stuck = false;
    try {
      moved = moveAside(this.path);
    } catch {
      stuck = true; // a read-only folder: the file stays, and is ignored until it is fixed
      this.#stuck = key;
    }
    this.#version.invalidate();
    this.opts.warn(this.opts.lost(reason, moved, stuck));
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof SyntaxError) return `it is not valid JSON: ${error.message}`;
  if (error instanceof ZodError) {
    return error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  }
  return error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable') : String(error);
}
