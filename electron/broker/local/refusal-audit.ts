// Refused connections on the local socket go to the audit log, but a flood of them must not fill it:
// the first refusal is written at once, later ones are counted and written as one entry per window
// (with how many there were, and why), and what is counted is written when the socket closes.

export type SocketRole = 'api' | 'connect' | 'attach' | 'reports' | 'handshake';

export interface Refusal {
  role: SocketRole;
  why: string;
}

export interface RefusalEntry {
  /** The first refusal of a quiet spell, or the count of those since. */
  first: boolean;
  count: number;
  /** How many of `count` had each role and reason. */
  reasons: Record<string, number>;
  latest: Refusal;
}

export const REFUSAL_WINDOW_MS = 60_000;

export class RefusalAudit {
  private counted?: { count: number; reasons: Record<string, number>; latest: Refusal };
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly write: (entry: RefusalEntry) => void,
    private readonly windowMs = REFUSAL_WINDOW_MS,
  ) {}

  refused(r: Refusal): void {
    if (!this.timer) {
      this.write({ first: true, count: 1, reasons: { [key(r)]: 1 }, latest: r });
      this.startWindow();
      return;
    }
    const c = (this.counted ??= { count: 0, reasons: {}, latest: r });
    c.count += 1;
    c.reasons[key(r)] = (c.reasons[key(r)] ?? 0) + 1;
    c.latest = r;
  }

  /** Writes what was counted (the socket is closing). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writeCounted();
  }

  private startWindow(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A window with refusals opens the next one: a steady flood writes one entry per window.
      if (this.writeCounted()) this.startWindow();
    }, this.windowMs);
    this.timer.unref();
  }

  private writeCounted(): boolean {
    const c = this.counted;
    this.counted = undefined;
    if (!c) return false;
    this.write({ first: false, ...c });
    return true;
  }
}

function key(r: Refusal): string {
  return `${r.role}: ${r.why}`;
}
