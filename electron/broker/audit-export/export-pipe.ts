// One destination's export: entries after its cursor, read from the log as it grows (the source),
// sent in batches, the cursor moved only once the destination took a batch. Off the call path: it
// reads what is on disk, after the log's own group commit, and never holds a call. A failed batch is
// sent again after a backoff that doubles up to a minute (with jitter, so that many machines do not
// come back at once); no entry is ever given up: past DOWN_AFTER failures the destination is reported
// down, and a backlog past BACKLOG_BOUND is reported, while the cursor stays and the export catches up.
import type { AuditEntry } from '../../../shared/api.js';
import type { AuditExportSinkStatus } from '../../../shared/api.js';
import type { ExportCursor } from './export-cursor.js';
import type { ExportSink } from './export-sink.js';

export const BATCH_MAX = 256;
/** Entries held in memory at most; past it the source is paused and read again from where the queue ends. */
export const QUEUE_MAX = 2048;
export const BACKLOG_BOUND = 100_000;
export const RETRY_BASE_MS = 1000;
export const RETRY_MAX_MS = 60_000;
/** Consecutive failures after which the destination is reported down (a banner and a status warning). */
export const DOWN_AFTER = 3;

/** The audit log as the export reads it (export-source.ts). */
export interface EntrySource {
  /** Calls onEntry with each entry after `afterSeq`, in order, now and as the log grows, until stopped. */
  start(afterSeq: number, onEntry: (entry: AuditEntry) => void): () => void;
  /** The last seq on disk. */
  lastSeq(): number;
}

export interface PipeOptions {
  sink: ExportSink;
  cursor: ExportCursor;
  source: EntrySource;
  /** The state shown in the status changed (down, back, backlog past its bound). */
  changed: () => void;
  warn: (text: string) => void;
  random?: () => number;
}

export class ExportPipe {
  readonly key: string;
  private queue: AuditEntry[] = [];
  private stopSource?: () => void;
  /** The seq of the last entry queued (or taken): the source resumes after it. */
  private queuedTo = 0;
  private exported: { seq: number; hash: string };
  private verify?: { seq: number; hash: string };
  private sending = false;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private failures = 0;
  private lastError?: string;
  private lastSuccessAt?: string;
  private shown = '';

  constructor(private readonly o: PipeOptions) {
    this.key = `${o.sink.kind} ${o.sink.target}`;
    const at = o.cursor.get(this.key);
    this.exported = { seq: at.seq, hash: at.hash };
  }

  start(): void {
    const { seq, hash } = this.exported;
    if (seq > this.o.source.lastSeq()) {
      this.o.warn(`The audit export to ${this.o.sink.target} had exported up to seq ${seq}, past the end of this log: it starts again from the first entry.`);
      this.restartFromStart();
      return;
    }
    // The entry at the cursor is read back first: it must be the one the cursor names (else the log is not the one it was for).
    if (seq > 0) this.verify = { seq, hash };
    this.listen(Math.max(0, seq - 1));
  }

  private restartFromStart(): void {
    this.stopSource?.();
    this.stopSource = undefined;
    this.queue = [];
    this.exported = { seq: 0, hash: '' };
    this.listen(0);
  }

  private listen(after: number): void {
    this.queuedTo = after;
    this.stopSource = this.o.source.start(after, (entry) => this.take(entry));
  }

  private take(entry: AuditEntry): void {
    if (this.closed) return;
    if (this.verify) {
      const v = this.verify;
      this.verify = undefined;
      if (entry.seq === v.seq && entry.hash === v.hash) {
        this.queuedTo = entry.seq;
        return;
      }
      this.o.warn(
        `The audit export to ${this.o.sink.target}: the entry at its cursor (seq ${v.seq}) is not the one it exported; it starts again from the first entry.`,
      );
      return this.restartFromStart();
    }
    if (entry.seq <= this.queuedTo) return;
    this.queue.push(entry);
    this.queuedTo = entry.seq;
    if (this.queue.length >= QUEUE_MAX) {
      this.stopSource?.();
      this.stopSource = undefined;
    }
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.closed || this.sending || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
    this.timer.unref?.();
  }

  private pump(): void {
    if (this.closed || this.sending) return;
    if (!this.queue.length) return this.resume();
    this.sending = true;
    const batch = this.queue.slice(0, BATCH_MAX);
    let sent: Promise<void>;
    try {
      sent = this.o.sink.send(batch);
    } catch (error) {
      sent = Promise.reject(error);
    }
    sent.then(
      () => this.taken(batch),
      (error: unknown) => this.failed(error),
    );
  }

  private taken(batch: AuditEntry[]): void {
    this.sending = false;
    if (this.closed) return;
    const last = batch.at(-1)!;
    this.exported = { seq: last.seq, hash: last.hash };
    try {
      this.o.cursor.set(this.key, last.seq, last.hash);
    } catch (error) {
      // Sent, but not recorded: after a restart they are sent again (duplicates by seq, never a loss).
      this.o.warn(`The audit export's cursor could not be saved (${(error as Error).message}).`);
    }
    this.queue.splice(0, batch.length);
    this.failures = 0;
    this.lastError = undefined;
    this.lastSuccessAt = new Date().toISOString();
    this.report();
    this.resume();
    if (this.queue.length) this.schedule(0);
  }

  private failed(error: unknown): void {
    this.sending = false;
    if (this.closed) return;
    this.failures++;
    this.lastError = error instanceof Error ? error.message : String(error);
    this.report();
    this.schedule(this.backoff());
  }

  /** 1 s, 2 s, 4 s… up to a minute, each ±20 %. */
  backoff(failures = this.failures): number {
    const base = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, failures - 1));
    return Math.round(base * (0.8 + 0.4 * (this.o.random ?? Math.random)()));
  }

  /** The source was paused with a full queue: read on once half of it is sent. */
  private resume(): void {
    if (this.closed || this.stopSource || this.queue.length > QUEUE_MAX / 2) return;
    this.listen(this.queuedTo);
  }

  private report(): void {
    const s = this.status();
    const shown = `${s.state} ${s.backlogExceeded}`;
    if (shown !== this.shown) {
      this.shown = shown;
      this.o.changed();
    }
  }

  status(): AuditExportSinkStatus {
    const backlog = Math.max(0, this.o.source.lastSeq() - this.exported.seq);
    return {
      kind: this.o.sink.kind,
      target: this.o.sink.target,
      state: this.failures === 0 ? 'ok' : this.failures < DOWN_AFTER ? 'retrying' : 'down',
      exportedSeq: this.exported.seq,
      backlog,
      backlogExceeded: backlog > BACKLOG_BOUND,
      failures: this.failures,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
      ...(this.lastSuccessAt !== undefined && { lastSuccessAt: this.lastSuccessAt }),
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopSource?.();
    this.stopSource = undefined;
    if (this.timer) clearTimeout(this.timer);
    await this.o.sink.close();
  }
}
