// A destination the audit export sends to (otlp-sink.ts, syslog-sink.ts).
import type { AuditEntry } from '../../../shared/api.js';

export interface ExportSink {
  readonly kind: 'otlp' | 'syslog';
  /** Where it sends, without credentials (shown in the status). */
  readonly target: string;
  /** Resolves once the destination took every entry (as far as its protocol can tell); rejects otherwise. */
  send(entries: AuditEntry[]): Promise<void>;
  close(): Promise<void>;
}
