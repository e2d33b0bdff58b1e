// The OTLP/HTTP destination. The OpenTelemetry SDK and exporters (otlp-exporter.ts) are loaded when it
// first sends, so a Countersign that exports nothing over OTLP never loads them (~150–300 ms at start).
import type { AuditEntry } from '../../../shared/api.js';
import { otlpTarget, type AuditExportDestination } from '../../../shared/audit-export-schema.js';
import type { ExportSink } from './export-sink.js';
import type { OtlpExporter } from './otlp-exporter.js';

type OtlpDestination = NonNullable<AuditExportDestination['otlp']>;

export class OtlpSink implements ExportSink {
  readonly kind = 'otlp' as const;
  readonly target: string;
  private exporter?: Promise<OtlpExporter>;

  constructor(
    private readonly d: OtlpDestination,
    private readonly timeoutMs = 10_000,
  ) {
    this.target = otlpTarget(d);
  }

  async send(entries: AuditEntry[]): Promise<void> {
    this.exporter ??= import('./otlp-exporter.js')
      .then((m) => new m.OtlpExporter(this.d, this.timeoutMs))
      .catch((error: unknown) => {
        this.exporter = undefined; // tried again with the next batch
        throw error;
      });
    await (await this.exporter).send(entries);
  }

  async close(): Promise<void> {
    const exporter = await this.exporter?.catch(() => undefined);
    await exporter?.close();
  }
}
