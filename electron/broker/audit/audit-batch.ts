// Call entries of the broker's own sessions (HTTP, and the broker-side relay), written by group commit:
// each call's answer is held until its entry is on disk, so a crash loses nothing whose answer went out.
// No synchronous file I/O on the call path: one asynchronous write is in flight at a time (a look at the
// file, then one write on the descriptor kept open, audit-log.ts), and the next batch forms meanwhile
// from whatever arrives. Answers are released when their batch's write completes. Entries no answer
// waits for (calls `connect` reported) may wait a few milliseconds for company (later()).
// Order and the hash chain are unchanged: the chain is computed when a batch is handed to the log, and
// anything else written to the log (or read from it) first writes the queued batch and finishes the write
// in flight, synchronously (flush, and AuditLog's #settle).
import type { NewAuditEntry } from './audit-log.js';
import { monotonicMs } from '../core/clock.js';

/** A batch never holds more entries than this (each call's arguments may be large). */
export const MAX_BATCH_ENTRIES = 64;
/** A look at the file taken ahead (expect()) serves a write this soon after it; older, the file is looked at again. */
export const LOOK_MAX_AGE_MS = 50;
/** How long an entry nobody waits on (see later()) may wait for others to share its write. */
export const LATER_MS = 10;

const NOBODY = (): void => undefined;

export interface BatchWriter {
  /** Looks at the log file without holding the event loop, for the write that follows. Never rejects. */
  prepare(): Promise<void>;
  /** Whether the last look still holds (nothing was written since). */
  fresh?(): boolean;
  /** Appends the entries in order; resolves with how many of them reached the disk. Never rejects. */
  write(entries: NewAuditEntry[]): Promise<number>;
  /** The same, now: how many reached the disk (never throws). */
  writeNow(entries: NewAuditEntry[]): number;
}

export class AuditBatch {
  private entries: NewAuditEntry[] = [];
  private waiters: Array<(written: boolean) => void> = [];
  /** A look at the file or a write is under way: new entries wait for the next batch. */
  private busy = false;
  private timer?: NodeJS.Timeout;
  /** A look at the file taken ahead of the entry it is for (expect()). */
  private ahead?: { at: number; settled: boolean; done: Promise<void> };

  constructor(private readonly writer: BatchWriter) {}

  /** Resolves true once the entry is on disk, false when the log did not take it (it is kept, see audit-guard.ts). */
  push(entry: NewAuditEntry): Promise<boolean> {
    this.entries.push(entry);
    const written = new Promise<boolean>((resolve) => this.waiters.push(resolve));
    if (!this.busy) this.next();
    return written;
  }

  /**
   * Queues an entry whose answer is not held here (a call `connect` ran and has reported): written with
   * the next batch, or within LATER_MS, so a run of such calls shares one write. Order is kept.
   */
  later(entry: NewAuditEntry): void {
    this.entries.push(entry);
    this.waiters.push(NOBODY);
    if (this.busy) return;
    if (this.entries.length >= MAX_BATCH_ENTRIES) return this.next();
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.busy) this.next();
      }, LATER_MS);
      this.timer.unref();
    }
  }

  /**
   * A call was forwarded: its entry follows when it ends. The look at the file starts now, while the
   * server works, so that the write can go as soon as the entry comes (the answer waits for less).
   */
  expect(): void {
    if (this.busy || this.ahead) return;
    const ahead = { at: monotonicMs(), settled: false, done: Promise.resolve() };
    ahead.done = this.writer
      .prepare()
      .catch(() => undefined)
      .then(() => void (ahead.settled = true));
    this.ahead = ahead;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Writes what is queued now, synchronously (cheap when nothing is). */
  flush(): void {
    this.stopTimer();
    if (!this.entries.length) return;
    const { entries, waiters } = this.take(this.entries.length);
    let written = 0;
    try {
      written = this.writer.writeNow(entries);
    } catch {
      written = 0; // whatever broke, these answers must not claim a written entry
    }
    waiters.forEach((resolve, i) => resolve(i < written));
  }

  /** One look and one write for what has queued up by the time the look returns. */
  private next(): void {
    this.stopTimer();
    if (!this.entries.length) {
      this.busy = false;
      return;
    }
    this.busy = true;
    const ahead = this.ahead;
    this.ahead = undefined;
    // A look taken ahead serves if it is recent and nothing was written since it returned.
    const usable = ahead && monotonicMs() - ahead.at < LOOK_MAX_AGE_MS && (!ahead.settled || this.writer.fresh?.() !== false);
    const looked = usable ? ahead.done : this.writer.prepare().catch(() => undefined);
    void looked.then(() => {
      // A read or another append may have written them meanwhile (flush).
      if (!this.entries.length) return void (this.busy = false);
      const { entries, waiters } = this.take(Math.min(this.entries.length, MAX_BATCH_ENTRIES));
      // Handed to the log in this same tick: taken from the queue, they are chained at once (a read or
      // another append in between would not see them, or would go before them).
      let writing: Promise<number>;
      try {
        writing = this.writer.write(entries);
      } catch (error) {
        writing = Promise.reject(error as Error);
      }
      return writing
        .catch(() => 0) // whatever broke, these answers must not claim a written entry
        .then((written) => {
          waiters.forEach((resolve, i) => resolve(i < written));
          this.next();
        });
    });
  }

  private stopTimer(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private take(n: number): { entries: NewAuditEntry[]; waiters: Array<(written: boolean) => void> } {
    const entries = this.entries.splice(0, n);
    const waiters = this.waiters.splice(0, n);
    return { entries, waiters };
  }
}
