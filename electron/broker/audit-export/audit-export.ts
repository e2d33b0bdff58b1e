// The audit export as the broker runs it: the destination in effect (export-destination.ts), one pipe
// per destination (export-pipe.ts), looked at again when settings or the managed policy change. Its
// state goes into the status, and a destination that is down or a backlog past its bound into the
// status warnings (the UI shows those as banners).
import type { AuditExportStatus } from '../../../shared/api.js';
import type { AuditExportDestination } from '../../../shared/audit-export-schema.js';
import { ExportCursor } from './export-cursor.js';
import { exportChoice, type ExportChoice } from './export-destination.js';
import { BACKLOG_BOUND, ExportPipe, type EntrySource } from './export-pipe.js';
import type { ExportSink } from './export-sink.js';
import { OtlpSink } from './otlp-sink.js';
import { SyslogSink } from './syslog-sink.js';
import type { ManagedState } from '../policy/managed-source.js';

/** How often the destination is looked at again (a managed policy deployed while Countersign runs). */
export const RECHECK_MS = 5000;

export interface AuditExportOptions {
  dataDir: string;
  source: EntrySource;
  managed: () => ManagedState;
  /** The person's destination, as sealed (export-setting.ts). */
  person: () => AuditExportDestination | undefined;
  /** What to say when settings.json names another destination than the sealed one. */
  handEdited?: () => string | undefined;
  changed: () => void;
  warn: (text: string) => void;
  /** Replaceable in tests. */
  sinks?: (d: AuditExportDestination) => ExportSink[];
}

export function sinksFor(d: AuditExportDestination): ExportSink[] {
  return [...(d.otlp ? [new OtlpSink(d.otlp)] : []), ...(d.syslog ? [new SyslogSink(d.syslog)] : [])];
}

export class AuditExport {
  private readonly cursor: ExportCursor;
  private choice?: ExportChoice;
  private key = '';
  private pipes: ExportPipe[] = [];
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly o: AuditExportOptions) {
    this.cursor = new ExportCursor(o.dataDir, o.warn);
  }

  start(): void {
    this.refresh();
    this.timer = setInterval(() => this.refresh(), RECHECK_MS);
    this.timer.unref();
  }

  /** Looks at the destination again; starts, stops or moves the export when it changed. */
  refresh(): void {
    if (this.closed) return;
    let choice: ReturnType<typeof exportChoice>;
    try {
      choice = exportChoice(this.o.managed(), this.o.person());
    } catch {
      return; // settings unreadable for now: keep what runs
    }
    if (choice === 'unchanged') return;
    const key = choice ? JSON.stringify(choice.destination) : '';
    if (key === this.key) {
      this.choice = choice;
      return;
    }
    const old = this.pipes;
    this.pipes = [];
    for (const pipe of old) void pipe.close();
    this.key = key;
    this.choice = choice;
    if (choice) {
      const make = this.o.sinks ?? sinksFor;
      this.pipes = make(choice.destination).map(
        (sink) => new ExportPipe({ sink, cursor: this.cursor, source: this.o.source, changed: this.o.changed, warn: this.o.warn }),
      );
      for (const pipe of this.pipes) pipe.start();
    }
    this.o.changed();
  }

  status(): AuditExportStatus | undefined {
    if (!this.choice) return undefined;
    return {
      source: this.choice.source,
      ...(this.choice.required && { required: this.choice.required }),
      sinks: this.pipes.map((p) => p.status()),
    };
  }

  /** What the status warnings say (shown as banners): a destination down, a backlog past its bound. */
  warnings(status = this.status()): string[] {
    const out: string[] = [];
    const edited = this.o.handEdited?.();
    if (edited) out.push(edited);
    for (const s of status?.sinks ?? []) {
      if (s.state === 'down') {
        out.push(
          `The audit export to ${s.target} is failing (${s.failures} tries: ${s.lastError ?? 'no answer'}). ` +
            `Nothing is lost: ${s.backlog} entries wait and are sent when it answers again.`,
        );
      }
      if (s.backlogExceeded) {
        out.push(
          `The audit export to ${s.target} is ${s.backlog} entries behind, past its bound of ${BACKLOG_BOUND}. ` +
            'None is dropped: the export resumes from its cursor and catches up.',
        );
      }
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all(this.pipes.map((p) => p.close()));
    this.pipes = [];
  }
}
