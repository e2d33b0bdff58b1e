// Launches refused for want of the person's consent. Each server and command (its launch hash) waits once
// in the queue as "needs your approval to start", however often a client retries; Approve there is the
// Servers screen's own approveLaunch (bound to the hash shown, sealed). Every refusal is logged: the first
// at once, the repeats of each quiet window as one entry with their count, so a retrying client cannot
// flood the log.
import type { LaunchRequest, ServerConfig } from '../../../shared/api.js';
import type { LaunchView } from '../../../shared/trust-types.js';
import type { Change } from '../audit/change-entry.js';

export const REPEAT_WINDOW_MS = 60_000;
const MAX_CLIENTS = 10;

interface Waiting {
  request: LaunchRequest;
  /** Refusals since the last entry about this launch. */
  unlogged: number;
  timer?: NodeJS.Timeout;
  /** A launch whose placeholders the client filled: what the person approves, and the stored launch's hash. */
  filled?: Filled;
}

export interface Filled {
  consent: ServerConfig;
  base: string;
}

export interface LaunchRequestsDeps {
  record(change: Change): void;
  /** A request was added or dropped (the queue shows them). */
  changed(): void;
  windowMs?: number;
}

export class LaunchRequests {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly deps: LaunchRequestsDeps) {}

  /** A client's launch of `server` was refused: `view` is what would have run, `client` who asked (when named). */
  refused(server: string, view: LaunchView, reason: string, client: string | undefined, filled?: Filled): void {
    const key = `${server}\u0000${view.hash}`;
    const now = Date.now();
    const known = this.waiting.get(key);
    if (known) {
      const r = known.request;
      r.attempts += 1;
      r.lastAt = now;
      if (client && !r.clients.includes(client) && r.clients.length < MAX_CLIENTS) r.clients.push(client);
      known.unlogged += 1;
      known.timer ??= this.window(key);
      return;
    }
    const request: LaunchRequest = { server, launch: view, reason, firstAt: now, lastAt: now, attempts: 1, clients: client ? [client] : [] };
    const item: Waiting = { request, unlogged: 0, ...(filled && { filled }) };
    this.waiting.set(key, item);
    this.log(request, `launch refused: ${reason}; it waits for your approval`, client);
    item.timer = this.window(key);
    this.deps.changed();
  }

  /** What waits, oldest first; `current` says whether a server's launch still needs the same approval. */
  list(stillWaiting: (server: string, hash: string, filled?: Filled) => boolean): LaunchRequest[] {
    let dropped = false;
    for (const [key, item] of this.waiting) {
      if (stillWaiting(item.request.server, item.request.launch.hash, item.filled)) continue;
      this.drop(key, item);
      dropped = true;
    }
    if (dropped) this.deps.changed();
    return [...this.waiting.values()].map((i) => structuredClone(i.request)).sort((a, b) => a.firstAt - b.firstAt);
  }

  /** The filled launch waiting with this hash, for the person's approval of exactly it. */
  filledLaunch(server: string, hash: string): Filled | undefined {
    return this.waiting.get(`${server}\u0000${hash}`)?.filled;
  }

  /** Writes what was counted (Countersign is stopping). */
  close(): void {
    for (const [key, item] of this.waiting) this.drop(key, item);
  }

  private drop(key: string, item: Waiting): void {
    clearTimeout(item.timer);
    this.flush(item);
    this.waiting.delete(key);
  }

  /** One entry per window for the repeats; a window with none ends the counting until the next refusal. */
  private window(key: string): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const item = this.waiting.get(key);
      if (!item) return;
      item.timer = item.unlogged > 0 ? this.window(key) : undefined;
      this.flush(item);
    }, this.deps.windowMs ?? REPEAT_WINDOW_MS);
    timer.unref();
    return timer;
  }

  private flush(item: Waiting): void {
    if (item.unlogged === 0) return;
    const n = item.unlogged;
    item.unlogged = 0;
    this.log(item.request, `launch refused ${n} more time${n === 1 ? '' : 's'} (a client retrying): ${item.request.reason}`);
  }

  private log(request: LaunchRequest, what: string, client?: string): void {
    const { commandLine, url, cwd, envNames, limits, hash } = request.launch;
    this.deps.record({
      kind: 'launch',
      actor: 'countersign',
      server: request.server,
      what,
      decision: 'deny',
      details: { commandLine, url, cwd, envNames, limits, hash, attempts: request.attempts, ...(client ? { client } : {}) },
    });
  }
}
