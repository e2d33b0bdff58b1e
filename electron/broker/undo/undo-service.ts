// Undo as the broker offers it: the snapshot a call gets before it is forwarded (call-gate.ts asks for
// it where the broker's decision is final, for both its own sessions and relay mode's `connect`), the
// after-state once it ends, the list of undoable calls, and the preview and apply the API exposes.
// Applying is a consent action bound to the preview's hash; it is audited and snapshotted itself.
import type { Actor, AuditEntry, Settings } from '../../../shared/api.js';
import { UNDO_DEFAULTS, type UndoableCall, type UndoPreview, type UndoResult, type UndoTarget } from '../../../shared/undo.js';
import type { Change } from '../audit/change-entry.js';
import { monotonicMs } from '../core/clock.js';
import { prune, type Pruned } from './undo-bounds.js';
import { applyUndo } from './undo-apply.js';
import { catalog, selectCalls, viewOf } from './undo-catalog.js';
import { planUndo, type Plan } from './undo-plan.js';
import { SnapshotStore, type SnapshotCall } from './snapshot-store.js';

export class UndoConsentError extends Error {
  override name = 'UndoConsentError';
}

export interface UndoDeps {
  dataDir: string;
  keyOf(): Buffer;
  settings(): Settings;
  record(change: Change): void;
  /** Every audit entry that names a snapshot (for seqs). */
  entries(): Promise<AuditEntry[]>;
  /** Test hook: the snapshot is synced and the call is about to go on. */
  afterKept?(id: string): Promise<void>;
}

/** What the gate holds for a forwarded call: its snapshot, and how to record what it left. */
export interface CallSnapshot {
  snapshot?: string;
  /** Records the after-state (the call ended); never throws. */
  settle(status: string): Promise<void>;
}

const PRUNE_EVERY_MS = 10 * 60_000;

export class UndoService {
  readonly store: SnapshotStore;
  #lastPrune = Number.NEGATIVE_INFINITY;
  #pruning?: Promise<unknown>;

  constructor(private readonly deps: UndoDeps) {
    this.store = new SnapshotStore(deps.dataDir, deps.keyOf, { maxFileBytes: () => this.bounds().maxFileBytes, afterKept: deps.afterKept });
  }

  bounds(): { maxBytes: number; maxAgeMs: number; maxFileBytes: number } {
    const s = this.deps.settings();
    return {
      maxBytes: (s.undoMaxMB ?? UNDO_DEFAULTS.maxMB) * 1e6,
      maxAgeMs: (s.undoMaxDays ?? UNDO_DEFAULTS.maxDays) * 86_400_000,
      maxFileBytes: (s.undoMaxFileMB ?? UNDO_DEFAULTS.maxFileMB) * 1e6,
    };
  }

  /** Keeps what the call will change; resolves once it is on disk. Throws when it could not be kept. */
  async beforeForward(call: SnapshotCall): Promise<CallSnapshot> {
    const kept = await this.store.before(call);
    if (!kept) return { settle: async () => undefined };
    this.#maybePrune();
    return { snapshot: kept.id, settle: (status) => this.store.after(kept, kept.reals, status).catch(() => undefined) };
  }

  async list(): Promise<UndoableCall[]> {
    await this.store.settled();
    const cat = catalog(this.store.index.read());
    const seqOf = await this.#seqs();
    return [...cat.befores.values()].reverse().map((b) => viewOf(b, cat, seqOf));
  }

  async preview(target: UndoTarget): Promise<UndoPreview> {
    return (await this.#plan(target)).preview;
  }

  /** Applies the undo the person saw (`hash`); a conflict needs `confirmConflicts`. */
  async apply(target: UndoTarget, hash: string, opts: { confirmConflicts?: boolean }, actor: Actor): Promise<UndoResult> {
    const plan = await this.#plan(target);
    if (plan.preview.hash !== hash)
      throw new UndoConsentError('The files changed after the undo preview was shown, so nothing was written. Look at the preview again.');
    if (plan.preview.conflicts && !opts.confirmConflicts) {
      throw new UndoConsentError(
        `${plan.preview.conflicts} file(s) changed since the call; nothing was written. Confirm the conflict to overwrite them with the state before the call.`,
      );
    }
    const result = await applyUndo(this.store, plan, actor);
    this.deps.record({
      kind: 'undo',
      actor,
      server: plan.calls.length === 1 ? plan.calls[0]!.server : '*',
      tool: plan.calls.length === 1 ? plan.calls[0]!.tool : '*',
      what: `Undid ${plan.calls.length} call(s): ${result.files.filter((f) => f.done).length} file(s) put back${
        plan.preview.conflicts ? `, ${plan.preview.conflicts} conflict(s) confirmed` : ''
      }.`,
      details: { undone: plan.calls.map((c) => c.id), files: result.files, previewHash: hash },
      snapshot: result.snapshot,
    });
    return result;
  }

  async #plan(target: UndoTarget): Promise<Plan> {
    await this.store.settled();
    const cat = catalog(this.store.index.read());
    const seqOf = await this.#seqs();
    let resolved = target;
    if ('seq' in target) {
      const entry = (await this.deps.entries()).find((e) => e.seq === target.seq);
      if (!entry) throw new Error(`No log entry #${target.seq}.`);
      if (!entry.snapshot)
        throw new Error(`#${target.seq} (${entry.tool}) has no snapshot: Countersign could not tell which files it changes, so it cannot undo it.`);
      resolved = { snapshot: entry.snapshot };
    }
    const calls = selectCalls(cat, resolved);
    if (!calls.length) throw new Error('No call matches: nothing to undo.');
    return planUndo(target, calls, cat, this.store.blobs, seqOf);
  }

  async #seqs(): Promise<(id: string) => number | undefined> {
    const map = new Map<string, number>();
    for (const e of await this.deps.entries()) if (e.snapshot) map.set(e.snapshot, e.seq);
    return (id) => map.get(id);
  }

  /** Resolves once after-states and a prune under way are done (tests, and a clean stop). */
  async idle(): Promise<void> {
    await this.store.settled();
    await this.#pruning;
  }

  /** Keeps the bounds: now and then, and whenever the store grew by a twentieth of its limit. */
  #maybePrune(): void {
    const b = this.bounds();
    if (this.#pruning || (monotonicMs() - this.#lastPrune < PRUNE_EVERY_MS && this.store.addedBytes < b.maxBytes / 20)) return;
    this.#lastPrune = monotonicMs();
    this.#pruning = this.prune().finally(() => (this.#pruning = undefined));
  }

  /** Prunes to the bounds and logs what went. */
  async prune(now = Date.now()): Promise<Pruned> {
    const done = await prune(this.store, this.bounds(), now);
    if (done.calls) {
      this.deps.record({
        kind: 'undo',
        actor: 'countersign',
        server: '*',
        what: `Undo snapshots pruned, oldest first: ${done.calls} call(s) (${done.byAge} older than the age limit, ${done.bySize} over the size limit), ${Math.round(done.freedBytes / 1e3)} kB freed.`,
        details: done,
      });
    }
    return done;
  }
}
