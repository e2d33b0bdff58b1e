// Every call that reaches Countersign is in the audit log. When the disk refuses an append (read-only,
// full, the folder gone), the entries are kept in memory, the broker refuses new calls (fail closed),
// and the status says so, naming what is not yet written (a call that already ran included). Writing
// is retried every few seconds and with each new entry; once the log takes them, calls work again.
import fs from 'node:fs';
import type { AuditEntry } from '../../../shared/api.js';
import { escapeControl } from '../../../shared/escape.js';
import { AuditWriteError, type NewAuditEntry } from './audit-log.js';

export interface AuditGuardDeps {
  write(entries: NewAuditEntry[]): AuditEntry[];
  /** The same without holding the event loop (AuditLog.appendManyAsync); rejects with an AuditWriteError. */
  writeAsync?(entries: NewAuditEntry[]): Promise<AuditEntry[]>;
  /** The log file and its folder (recreated when it vanished). */
  path: string;
  dir: string;
  /** The fault began or ended: the status changed. */
  changed(): void;
  retryMs?: number;
}

export class AuditGuard {
  #queue: NewAuditEntry[] = [];
  #fault?: { since: string; error: string };
  #timer?: NodeJS.Timeout;
  /** The entries of the asynchronous write in flight (appendAsync). */
  #inFlight?: NewAuditEntry[];

  constructor(private readonly deps: AuditGuardDeps) {}

  /** Writes what waits and then `entries`, in order; returns what reached the disk now. Never throws. */
  append(entries: NewAuditEntry[]): AuditEntry[] {
    const all = this.#queue.length ? [...this.#queue, ...entries] : entries;
    if (!all.length) return [];
    try {
      const written = this.#write(all);
      this.#queue = [];
      if (this.#fault) this.#recovered();
      return written;
    } catch (error) {
      const written = error instanceof AuditWriteError ? error.written : [];
      // The write in flight could not be finished before this one: its entries come first.
      const lost = error instanceof AuditWriteError && error.lostInFlight ? (this.#inFlight ?? []) : [];
      if (lost.length) this.#inFlight = undefined;
      this.#queue = [...lost, ...all.slice(written.length)];
      const cause = error instanceof AuditWriteError ? error.cause : (error as Error);
      const first = !this.#fault;
      this.#fault = { since: this.#fault?.since ?? new Date().toISOString(), error: cause.message };
      if (first) {
        this.#timer = setInterval(() => this.append([]), this.deps.retryMs ?? 2000);
        this.#timer.unref();
        this.deps.changed();
      }
      return written;
    }
  }

  /**
   * Like append, with the write asynchronous (one at a time: audit-batch.ts). Resolves with what reached
   * the disk; never rejects. While the log is at fault, or when the write fails, it is append's way.
   */
  appendAsync(entries: NewAuditEntry[]): Promise<AuditEntry[]> {
    const { writeAsync } = this.deps;
    if (!writeAsync || this.#fault || this.#queue.length || this.#inFlight || !entries.length) return Promise.resolve(this.append(entries));
    this.#inFlight = entries;
    return writeAsync(entries).then(
      (written) => {
        if (this.#inFlight === entries) this.#inFlight = undefined;
        return written;
      },
      () => {
        // A synchronous append that could not finish this write either has queued its entries already.
        if (this.#inFlight !== entries) return [];
        this.#inFlight = undefined;
        // Nothing was written after it: tried again now, the synchronous way, which makes a vanished
        // folder again or keeps the entries and refuses new calls.
        return this.append(entries);
      },
    );
  }

  #write(all: NewAuditEntry[]): AuditEntry[] {
    try {
      return this.deps.write(all);
    } catch (error) {
      if (!(error instanceof AuditWriteError) || error.code !== 'ENOENT' || error.written.length) throw error;
      // The data folder vanished: make it again (private) and try once more.
      fs.mkdirSync(this.deps.dir, { recursive: true, mode: 0o700 });
      return this.deps.write(all);
    }
  }

  #recovered(): void {
    this.#fault = undefined;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.deps.changed();
  }

  /** Why a new call is refused now, or undefined. */
  refusal(): string | undefined {
    if (!this.#fault) return undefined;
    return `Countersign refused this call: it cannot write its audit log (${this.#fault.error}), and it runs no call it cannot record. It was not run. Calls work again once the log is writable.`;
  }

  /** The status line while the log cannot be written. */
  warning(): string | undefined {
    if (!this.#fault) return undefined;
    const unlogged = this.#queue.slice(-3).map(describe).join('; ');
    return (
      `Countersign cannot write its audit log ${this.deps.path} (${this.#fault.error}) since ${this.#fault.since}. New calls are refused until it is writable again. ` +
      `${this.#queue.length} entr${this.#queue.length === 1 ? 'y is' : 'ies are'} not logged yet${unlogged ? ` (latest: ${unlogged})` : ''}; they are written as soon as the log takes them.`
    );
  }

  /** Entries not on disk yet (oldest first). */
  unlogged(): readonly NewAuditEntry[] {
    return this.#queue;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function describe(e: NewAuditEntry): string {
  const what = `'${escapeControl(e.tool)}' on '${escapeControl(e.server)}'`;
  if (e.kind && e.kind !== 'call') return `${e.kind} change ${what}: ${escapeControl(e.detail ?? '')}`;
  const ran = e.decision === 'allow' && e.status !== 'denied' && e.status !== 'cancelled';
  return `call ${what}, which ${ran ? 'ran' : 'was not run'}`;
}
