// The snapshot store in the data dir (`snapshots/`): before a call Countersign lets through is
// forwarded, the state of each local file it will change (content and mode, "did not exist", a folder's
// listing) is kept here and synced; once its result arrives, what it left. Blobs are content-addressed
// (blob-store.ts), the index is sealed (snapshot-index.ts), and bounds are kept by undo-bounds.ts.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileState } from '../../../shared/undo.js';
import { changedTargets } from '../../../shared/undo.js';
import { BlobStore } from './blob-store.js';
import { resolvedPath, stateOf } from './safe-path.js';
import { SnapshotIndex, type IndexRecord, type SnapFile } from './snapshot-index.js';
import { SNAPSHOTS_DIR } from './snapshots-dir.js';

export { SNAPSHOTS_DIR };

/** The call a snapshot is for. */
export interface SnapshotCall {
  server: string;
  tool: string;
  arguments: unknown;
  client?: string;
  clientKey?: string;
  session?: string;
}

export interface Kept {
  id: string;
  /** A file could not be kept (over the size limit, or a link): undo of this call is partial. */
  partial: boolean;
  /** The resolved paths it kept (their after-state is recorded when the call ends). */
  reals: string[];
}

export interface StoreOptions {
  /** The single-file limit in bytes (read at each snapshot, so Settings apply at once). */
  maxFileBytes(): number;
  /** Test hook: called once the snapshot is synced, before the call goes on (the crash-ordering test). */
  afterKept?(id: string): Promise<void>;
}

export class SnapshotStore {
  readonly dir: string;
  readonly blobs: BlobStore;
  readonly index: SnapshotIndex;
  /** After-states being recorded: undo waits for them, so it compares against what the call left. */
  readonly #afters = new Map<string, Promise<void>>();
  /** Bytes of blobs added since the store was last measured (undo-bounds.ts reads and resets it). */
  addedBytes = 0;

  constructor(
    dataDir: string,
    keyOf: () => Buffer,
    private readonly opts: StoreOptions,
  ) {
    this.dir = path.join(dataDir, SNAPSHOTS_DIR);
    this.blobs = new BlobStore(path.join(this.dir, 'blobs'));
    this.index = new SnapshotIndex(this.dir, keyOf);
  }

  /** Keeps what the call will change; undefined when Countersign cannot tell which files that is. */
  async before(call: SnapshotCall, extra: { undoOf?: string[]; actor?: string } = {}): Promise<Kept | undefined> {
    const targets = changedTargets(call.tool, call.arguments).filter((t) => path.isAbsolute(t.path));
    if (!targets.length) return undefined;
    const files = await Promise.all(targets.map(async (t) => this.#keep(t.path, t.role)));
    // Folders a call may make on the way (create_directory is mkdir -p): "did not exist", deepest first.
    const seen = new Set(files.map((f) => f.real));
    for (const t of targets) {
      for (const folder of missingFolders(t.path)) {
        const real = resolvedPath(folder);
        if (!seen.has(real)) files.push({ path: folder, real, role: 'write', state: { kind: 'missing' } });
        seen.add(real);
      }
    }
    return this.record(call, files, extra);
  }

  /** Writes a before-record for files already kept (an undo keeps its own before-state this way). */
  async record(call: Omit<SnapshotCall, 'arguments'>, files: SnapFile[], extra: { undoOf?: string[]; actor?: string } = {}): Promise<Kept> {
    const id = randomBytes(8).toString('hex');
    const rec: IndexRecord = {
      type: 'before',
      id,
      time: new Date().toISOString(),
      server: call.server,
      tool: call.tool,
      client: call.client,
      clientKey: call.clientKey,
      session: call.session,
      ...extra,
      files,
    };
    await this.index.append(rec);
    await this.opts.afterKept?.(id);
    return { id, partial: files.some((f) => notRestorable(f.state)), reals: files.map((f) => f.real) };
  }

  /** The state of one path, its bytes kept as a blob. */
  async #keep(p: string, role: string): Promise<SnapFile> {
    const real = resolvedPath(p);
    return { path: p, real, role, state: await this.keepState(real) };
  }

  /** `sync: false` for an after-state: not needed for crash ordering, so not worth an fsync. */
  async keepState(real: string, opts: { sync?: boolean } = {}): Promise<FileState> {
    const limit = this.opts.maxFileBytes();
    const seen = await stateOf(real, 0); // lstat only: the blob's hash is the content's
    if (seen.kind !== 'file') return seen;
    if (seen.size > limit) return { kind: 'file', size: seen.size, mode: seen.mode, notKept: 'too-large' };
    const { hash, size } = await this.blobs.putFile(real, opts);
    this.addedBytes += size;
    return { kind: 'file', size, mode: seen.mode, hash };
  }

  /** Records what the call left (its result arrived, or it failed); undo compares the disk with it. */
  after(kept: Kept, files: string[], status: string): Promise<void> {
    const run = (async () => {
      const states = await Promise.all(files.map(async (real) => ({ real, state: await this.keepState(real, { sync: false }) })));
      await this.index.append([{ type: 'after', id: kept.id, time: new Date().toISOString(), status, files: states }], { sync: false });
    })();
    const settled = run.catch(() => undefined).finally(() => this.#afters.delete(kept.id));
    this.#afters.set(kept.id, settled);
    return run;
  }

  /** Waits for every after-state being recorded. */
  async settled(): Promise<void> {
    await Promise.all(this.#afters.values());
  }

  exists(): boolean {
    return fs.existsSync(this.dir);
  }
}

/** The folders above `p` that do not exist yet, deepest first. */
function missingFolders(p: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(p); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      fs.lstatSync(dir);
      break;
    } catch {
      out.push(dir);
    }
  }
  return out;
}

function notRestorable(s: FileState): boolean {
  return s.kind === 'other' || (s.kind === 'file' && s.notKept !== undefined);
}
