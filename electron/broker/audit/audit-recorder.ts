// How the broker writes to the audit log: changes of state and refused calls at once, a `connect`
// report's entries together, and call entries by group commit before their answers go out
// (audit-batch.ts). Every entry that reaches the disk is announced as a `log-appended` event.
import type { AuditEntry, BrokerEvent } from '../../../shared/api.js';
import { refusedCallEntry, type RefusedCall } from '../relay/protocol/refused-calls.js';
import { AuditBatch } from './audit-batch.js';
import type { AuditGuard } from './audit-guard.js';
import type { AuditLog, NewAuditEntry } from './audit-log.js';
import { changeEntry, type Change } from './change-entry.js';

export interface AuditRecorderOptions {
  log: AuditLog;
  guard: AuditGuard;
  emit: (event: BrokerEvent) => void;
  /** Whether anyone listens (no event is built for nobody). */
  listening: () => boolean;
}

export class AuditRecorder {
  private batched?: NewAuditEntry[];

  /** Call entries, written by group commit before their answers go out (see audit-batch.ts). */
  readonly calls: AuditBatch;

  constructor(private readonly opts: AuditRecorderOptions) {
    this.calls = new AuditBatch({
      prepare: () => opts.log.lookAtFile(),
      fresh: () => opts.log.hasFreshLook(),
      write: (entries) => opts.guard.appendAsync(entries).then((written) => this.announce(written)),
      writeNow: (entries) => this.write(entries),
    });
    // Written before anything else touches the log, so order and reads stay as if written at once.
    opts.log.beforeAccess = () => this.calls.flush();
  }

  /** Writes a change of state to the audit log. */
  record(change: Change): void {
    this.append(changeEntry(change));
  }

  /** Calls refused before they could be decided (protocol/refused-calls.ts): each is logged. */
  logRefused(server: string, client: string | undefined, calls: RefusedCall[]): void {
    for (const call of calls) this.append(refusedCallEntry(server, client, call));
  }

  append(entry: NewAuditEntry): void {
    if (this.batched) this.batched.push(entry);
    else this.write([entry]);
  }

  /** Runs `fn`, writing the audit entries it makes together (a `connect` report holds many calls). */
  batch(fn: () => void): void {
    if (this.batched) return fn();
    const batch: NewAuditEntry[] = (this.batched = []);
    try {
      fn();
    } finally {
      this.batched = undefined;
      if (batch.length) this.write(batch);
    }
  }

  /** How many of `entries` reached the disk; the rest wait in the guard (fail closed until they are written). */
  private write(entries: NewAuditEntry[]): number {
    return this.announce(this.opts.guard.append(entries));
  }

  private announce(written: AuditEntry[]): number {
    if (this.opts.listening()) for (const entry of written) this.opts.emit({ type: 'log-appended', entry });
    return written.length;
  }
}
