// The index of the snapshot store (`snapshots/index.jsonl`): one line per record, each sealed with an
// HMAC made with a key derived from the grants' seal key (store/grant-seal.ts), which lives outside the
// data dir. A line forged or edited by hand does not verify, and undo never uses it: it says so instead.
// Appended (and fsynced) before the call it describes is forwarded.
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { FileState } from '../../../shared/undo.js';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { syncDir } from './blob-store.js';

export class IndexForged extends Error {
  override name = 'IndexForged';
}

/** One path of a call, as it was before (or after) it. */
export interface SnapFile {
  /** As the call named it. */
  path: string;
  /** Its folders resolved when the snapshot was taken: undo works on this path, following no link. */
  real: string;
  role: string;
  state: FileState;
}

export type IndexRecord =
  | {
      type: 'before';
      id: string;
      time: string;
      server: string;
      tool: string;
      client?: string;
      clientKey?: string;
      session?: string;
      /** Set on an undo's own snapshot: the snapshots it undoes, and who asked. */
      undoOf?: string[];
      actor?: string;
      files: SnapFile[];
    }
  | { type: 'after'; id: string; time: string; status: string; files: Array<{ real: string; state: FileState }> }
  | { type: 'undone'; ids: string[]; by: string; time: string };

export interface IndexRead {
  records: IndexRecord[];
  /** Lines that do not verify: their line number and, where it could be read, the id they claim. */
  forged: Array<{ line: number; id?: string }>;
}

export class SnapshotIndex {
  readonly file: string;
  #key?: Buffer;
  #chain: Promise<unknown> = Promise.resolve();
  /**
   * What the last read verified, with the file's identity then: read again only when the file changed
   * other than by this process's own appends (which extend it).
   */
  #cache?: { stamp: string; read: IndexRead };

  constructor(
    readonly dir: string,
    private readonly keyOf: () => Buffer,
  ) {
    this.file = path.join(dir, 'index.jsonl');
  }

  #tag(rec: IndexRecord): string {
    this.#key ??= this.keyOf();
    return createHmac('sha256', this.#key)
      .update(canonicalJson(JSON.parse(JSON.stringify(rec))))
      .digest('hex');
  }

  line(rec: IndexRecord): string {
    return JSON.stringify({ v: 1, rec, tag: this.#tag(rec) }) + '\n';
  }

  /** Appends records and syncs them (file and folder) before resolving. Appends run one at a time. */
  append(recs: IndexRecord | IndexRecord[], opts: { sync?: boolean } = {}): Promise<void> {
    const list = (Array.isArray(recs) ? recs : [recs]).map((r) => JSON.parse(JSON.stringify(r)) as IndexRecord);
    const text = list.map((r) => this.line(r)).join('');
    const run = this.#chain.then(async () => {
      await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
      const created = !fs.existsSync(this.file);
      const fh = await fs.promises.open(this.file, 'a', 0o600);
      try {
        const before = stampOf(await fh.stat());
        await fh.write(text);
        if (opts.sync !== false) await fh.sync();
        const cached = this.#cache;
        // Our own lines extend what was verified; anything else makes the next read verify it all.
        this.#cache =
          cached && cached.stamp === before
            ? { stamp: stampOf(await fh.stat()), read: { ...cached.read, records: [...cached.read.records, ...list] } }
            : undefined;
      } finally {
        await fh.close();
      }
      if (created) await syncDir(this.dir);
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Every record whose seal verifies, in order, and the lines that do not. */
  read(): IndexRead {
    let text: string;
    let stamp: string;
    try {
      stamp = stampOf(fs.statSync(this.file));
      if (this.#cache?.stamp === stamp) return { records: [...this.#cache.read.records], forged: [...this.#cache.read.forged] };
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], forged: [] };
      throw err;
    }
    const out: IndexRead = { records: [], forged: [] };
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      const rec = this.#verify(line);
      if (rec) out.records.push(rec);
      else out.forged.push({ line: i + 1, id: claimedId(line) });
    });
    this.#cache = { stamp, read: { records: [...out.records], forged: [...out.forged] } };
    return out;
  }

  #verify(line: string): IndexRecord | undefined {
    try {
      const parsed = JSON.parse(line) as { v?: unknown; rec?: IndexRecord; tag?: unknown };
      if (parsed.v !== 1 || typeof parsed.tag !== 'string' || !parsed.rec || typeof parsed.rec !== 'object') return undefined;
      const want = Buffer.from(this.#tag(parsed.rec), 'hex');
      const got = Buffer.from(parsed.tag, 'hex');
      return got.length === want.length && timingSafeEqual(got, want) ? parsed.rec : undefined;
    } catch {
      return undefined;
    }
  }

  /** Rewrites the index with only `keep` (pruning); lines that did not verify are moved aside, never lost. */
  rewrite(keep: IndexRecord[]): Promise<void> {
    const run = this.#chain.then(async () => {
      const text = fs.existsSync(this.file) ? fs.readFileSync(this.file, 'utf8') : '';
      const unsealed = text.split('\n').filter((l) => l.trim() && !this.#verify(l));
      if (unsealed.length) fs.appendFileSync(path.join(this.dir, 'index.unsealed.jsonl'), unsealed.join('\n') + '\n', { mode: 0o600 });
      writeFileAtomicSync(this.file, keep.map((r) => this.line(r)).join(''));
      this.#cache = undefined;
      await syncDir(this.dir);
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }
}

/** A file's identity and version: any write changes its ctime, which no one can set back. */
function stampOf(st: fs.Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

function claimedId(line: string): string | undefined {
  try {
    const rec = (JSON.parse(line) as { rec?: { id?: unknown } }).rec;
    return typeof rec?.id === 'string' ? rec.id : undefined;
  } catch {
    return undefined;
  }
}
