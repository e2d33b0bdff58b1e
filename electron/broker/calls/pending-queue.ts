// Calls waiting for a person. Each resolves exactly once: by a decision, the timeout, a cancel or the
// session ending. Anything that arrives later is refused and forwards nothing.
import { randomUUID } from 'node:crypto';
import type { Actor, ClientWait, DecisionRequest, PendingCall, PendingRemovedWhy } from '../../../shared/api.js';
import { waitEndOf, type WaitEnd } from './client-patience.js';
import type { RuleExtra } from '../store/settings-store.js';

/** A rule the person made on a call, built from its arguments (see BrokerApi.decide). */
export type NewRule = RuleExtra & { session?: string };

export type Resolution =
  | { kind: 'allow-once' | 'allow-session' | 'always-allow'; actor: Actor }
  | { kind: 'allow-rule'; actor: Actor; rule: NewRule }
  | { kind: 'deny'; reason?: string; by: 'person' | 'timeout'; actor?: Actor }
  | { kind: 'cancelled'; end: WaitEnd };

interface Entry {
  call: PendingCall;
  resolve(r: Resolution): void;
  commit?(r: Resolution): void;
  timer: NodeJS.Timeout;
  progress?: NodeJS.Timeout;
}

export interface PendingQueueOptions {
  progressIntervalMs?: number;
  onAdded(call: PendingCall): void;
  onRemoved(id: string, why: PendingRemovedWhy): void;
}

export interface WaitOptions {
  timeoutMs: number;
  signal: AbortSignal;
  sendProgress(progress: number, message: string): void;
  /** When the client is likely to give up, from the moment the call starts waiting. */
  clientWait?(createdAt: number): ClientWait;
  /**
   * Makes a decision's lasting part real (saves an "always allow" rule) before the call is released.
   * When it throws, nothing is decided: the call keeps waiting and decide() throws the error.
   */
  commit?(r: Resolution): void;
}

export class PendingQueue {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: PendingQueueOptions) {}

  list(): PendingCall[] {
    return [...this.entries.values()].map((e) => e.call).sort((a, b) => a.createdAt - b.createdAt);
  }

  get size(): number {
    return this.entries.size;
  }

  get(id: string): PendingCall | undefined {
    return this.entries.get(id)?.call;
  }

  wait(call: Omit<PendingCall, 'id' | 'createdAt' | 'expiresAt'>, opts: WaitOptions): { id: string; result: Promise<Resolution> } {
    const id = randomUUID();
    const createdAt = Date.now();
    const full: PendingCall = { ...call, id, createdAt, expiresAt: createdAt + opts.timeoutMs };
    if (opts.clientWait) full.clientWait = opts.clientWait(createdAt);
    let resolveOuter!: (r: Resolution) => void;
    const result = new Promise<Resolution>((resolve) => (resolveOuter = resolve));
    const finish = (r: Resolution, why: Parameters<PendingQueueOptions['onRemoved']>[1]): void => {
      const entry = this.entries.get(id);
      if (!entry) return; // already resolved: at most once
      this.entries.delete(id);
      clearTimeout(entry.timer);
      clearInterval(entry.progress);
      opts.signal.removeEventListener('abort', onAbort);
      this.opts.onRemoved(id, why);
      resolveOuter(r);
    };
    const onAbort = (): void => {
      const end = waitEndOf(opts.signal);
      finish({ kind: 'cancelled', end }, end.by === 'client' ? 'agent-stopped' : 'cancelled');
    };
    if (opts.signal.aborted) {
      resolveOuter({ kind: 'cancelled', end: waitEndOf(opts.signal) });
      return { id, result };
    }
    const timer = setTimeout(() => finish({ kind: 'deny', by: 'timeout' }, 'timeout'), opts.timeoutMs);
    timer.unref();
    const entry: Entry = {
      call: full,
      commit: opts.commit,
      resolve: (r) => finish(r, r.kind === 'deny' ? 'denied' : r.kind === 'cancelled' ? (r.end.by === 'client' ? 'agent-stopped' : 'cancelled') : 'allowed'),
      timer,
    };
    // Keep the client from giving up while a person decides.
    const interval = this.opts.progressIntervalMs ?? 10_000;
    let ticks = 0;
    entry.progress = setInterval(() => {
      ticks += 1;
      opts.sendProgress(ticks, `Waiting for approval in Countersign (${Math.round((ticks * interval) / 1000)} s)`);
    }, interval);
    entry.progress.unref();
    opts.signal.addEventListener('abort', onAbort, { once: true });
    this.entries.set(id, entry);
    this.opts.onAdded(full);
    return { id, result };
  }

  /** False when the call is not pending (decided, timed out, cancelled, unknown). */
  /**
   * False when the call is not pending. Throws, leaving the call waiting, when the decision's rule
   * could not be saved (the wait's commit step): the answer follows the real save.
   */
  decide(id: string, decision: DecisionRequest, actor: Actor, rule?: NewRule): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    if (decision.kind === 'allow-rule' && !rule) return false;
    const resolution: Resolution =
      decision.kind === 'deny'
        ? { kind: 'deny', reason: decision.reason, by: 'person', actor }
        : decision.kind === 'allow-rule'
          ? { kind: 'allow-rule', actor, rule: rule! }
          : { kind: decision.kind, actor };
    entry.commit?.(resolution);
    entry.resolve(resolution);
    return true;
  }
}
