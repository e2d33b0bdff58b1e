// Call entries of the broker's own sessions (HTTP, and the broker-side relay), written in small batches:
// one check of the file and one append per BATCH_DELAY_MS instead of a statSync and an appendFileSync on
// every call, the way `connect` already batches its reports. Order and the hash chain are unchanged: the
// chain is computed when the batch is written, and anything else written to the log (or read from it)
// flushes the batch first. A crash of the broker can lose what was queued in the last few milliseconds:
// calls that already ran, whose answers went out; nothing that was not allowed is ever forwarded.
import type { NewAuditEntry } from './audit-log.js';

export const BATCH_DELAY_MS = 10;
/** A batch never holds more entries than this (each call's arguments may be large). */
export const MAX_BATCH_ENTRIES = 64;

export class AuditBatch {
  private entries: NewAuditEntry[] = [];
  private timer?: NodeJS.Timeout;

  /**
   * `write` appends the entries in order; `failed` hears of a batch that could not be written (the
   * entries are handed over, never dropped silently).
   */
  constructor(
    private readonly write: (entries: NewAuditEntry[]) => void,
    private readonly failed: (err: Error, entries: NewAuditEntry[]) => void,
    private readonly delayMs = BATCH_DELAY_MS,
  ) {}

  push(entry: NewAuditEntry): void {
    this.entries.push(entry);
    if (this.entries.length >= MAX_BATCH_ENTRIES) return this.flush();
    // Kept referenced: a broker that ends on its own still writes what it queued.
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Writes what is queued now (cheap when nothing is). */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.entries.length) return;
    const batch = this.entries;
    this.entries = [];
    try {
      this.write(batch);
    } catch (err) {
      this.failed(err as Error, batch);
    }
  }
}
