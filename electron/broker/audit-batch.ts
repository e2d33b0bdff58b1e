// Call entries of the broker's own sessions (HTTP, and the broker-side relay), written by group commit:
// the entries of one turn of the event loop go to the log in one write, and each call's answer is held
// until that write returned. A crash then loses nothing whose answer went out.
// The write is synchronous on a descriptor kept open (audit-log.ts): measured here, one write costs
// 8–14 µs that way, against 30–45 µs for an asynchronous one, and the answer waits for it either way.
// Entries no answer waits for (calls `connect` reported) may wait a few milliseconds for company (later()).
// Order and the hash chain are unchanged: the chain is computed when the batch is written, and anything
// else written to the log (or read from it) flushes the batch first.
import type { NewAuditEntry } from './audit-log.js';

/** A batch never holds more entries than this (each call's arguments may be large). */
export const MAX_BATCH_ENTRIES = 64;
/** How long an entry nobody waits on (see later()) may wait for others to share its write. */
export const LATER_MS = 10;

const NOBODY = (): void => undefined;

export class AuditBatch {
  private entries: NewAuditEntry[] = [];
  private waiters: Array<(written: boolean) => void> = [];
  private scheduled = false;
  private timer?: NodeJS.Timeout;

  /** `write` appends the entries in order and returns how many of them reached the disk (never throws). */
  constructor(private readonly write: (entries: NewAuditEntry[]) => number) {}

  /** Resolves true once the entry is on disk, false when the log did not take it (it is kept, see audit-guard.ts). */
  push(entry: NewAuditEntry): Promise<boolean> {
    this.entries.push(entry);
    const written = new Promise<boolean>((resolve) => this.waiters.push(resolve));
    if (this.entries.length >= MAX_BATCH_ENTRIES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      // After the I/O callbacks of this turn: answers read from the server together are logged together.
      setImmediate(() => this.flush());
    }
    return written;
  }

  /**
   * Queues an entry whose answer is not held here (a call `connect` ran and has reported): written with
   * the next batch, or within LATER_MS, so a run of such calls shares one write. Order is kept.
   */
  later(entry: NewAuditEntry): void {
    this.entries.push(entry);
    this.waiters.push(NOBODY);
    if (this.entries.length >= MAX_BATCH_ENTRIES) this.flush();
    else if (!this.scheduled && !this.timer) {
      this.timer = setTimeout(() => this.flush(), LATER_MS);
      this.timer.unref();
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** Writes what is queued now (cheap when nothing is). */
  flush(): void {
    this.scheduled = false;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.entries.length) return;
    const batch = this.entries;
    const waiters = this.waiters;
    this.entries = [];
    this.waiters = [];
    let written = 0;
    try {
      written = this.write(batch);
    } catch {
      written = 0; // whatever broke, these answers must not claim a written entry
    }
    waiters.forEach((resolve, i) => resolve(i < written));
  }
}
