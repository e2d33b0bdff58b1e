// Many HTTP clients never send DELETE, and 2026-07-28 clients have no session to delete: a session (or a
// stateless pool) with nothing in flight and no open stream for `idleMs` is closed, which ends its server.
import { monotonicMs } from '../core/clock.js';

export interface Reapable {
  /** Requests in flight or a stream open: the client is still there. */
  readonly busy: boolean;
  /** monotonicMs() of the last message either way. */
  readonly lastActivity: number;
  close(): Promise<void>;
}

export class SessionReaper {
  private timer?: NodeJS.Timeout;

  constructor(
    readonly idleMs: number,
    private readonly candidates: () => Promise<Reapable[]>,
  ) {}

  /** Runs while there is anything to watch; cheap to call on every new session. */
  start(): void {
    if (this.timer || !(this.idleMs > 0)) return;
    const every = Math.max(50, Math.min(this.idleMs / 4, 30_000));
    this.timer = setInterval(() => void this.sweep(), every);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sweep(): Promise<void> {
    const all = await this.candidates();
    if (all.length === 0) return this.stop();
    const now = monotonicMs();
    await Promise.allSettled(all.filter((s) => !s.busy && now - s.lastActivity >= this.idleMs).map((s) => s.close()));
  }
}
