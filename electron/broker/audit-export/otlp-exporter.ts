// Audit entries as OpenTelemetry log records over OTLP/HTTP (protobuf or JSON), with the official SDK
// and exporters: the SDK builds each record (resource, scope, attributes), and the exporter sends a
// batch and says whether the collector took it (an HTTP answer: the acknowledgement at-least-once needs).
// Loaded only when an OTLP destination first sends (otlp-sink.ts): the SDK is not part of every start.
import os from 'node:os';
import { SeverityNumber } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, type LogRecordExporter, type LogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { AuditEntry } from '../../../shared/api.js';
import type { AuditExportDestination } from '../../../shared/audit-export-schema.js';
import { VERSION } from '../core/version.js';
import { exportAttributes, exportedEntry } from './export-record.js';

type OtlpDestination = NonNullable<AuditExportDestination['otlp']>;

/** Hands each record the SDK emits to the batch being built (the exporter is called by send, not by a timer). */
class Collect implements LogRecordProcessor {
  records: ReadableLogRecord[] = [];
  onEmit(record: ReadableLogRecord): void {
    this.records.push(record);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export class OtlpExporter {
  private readonly exporter: LogRecordExporter;
  private readonly collect = new Collect();
  private readonly provider: LoggerProvider;

  constructor(d: OtlpDestination, timeoutMs: number) {
    const config = { url: d.endpoint, headers: { ...d.headers }, timeoutMillis: timeoutMs };
    this.exporter = d.protocol === 'http/json' ? new JsonExporter(config) : new ProtoExporter(config);
    this.provider = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'countersign', 'service.version': VERSION, 'host.name': os.hostname() }),
      processors: [this.collect],
    });
  }

  send(entries: AuditEntry[]): Promise<void> {
    const logger = this.provider.getLogger('countersign.audit', VERSION);
    this.collect.records = [];
    for (const entry of entries) {
      const time = new Date(entry.time);
      logger.emit({
        eventName: 'countersign.audit',
        timestamp: Number.isNaN(time.getTime()) ? new Date() : time,
        severityNumber: entry.decision === 'deny' ? SeverityNumber.WARN : SeverityNumber.INFO,
        severityText: entry.decision === 'deny' ? 'WARN' : 'INFO',
        body: JSON.stringify(exportedEntry(entry)),
        attributes: exportAttributes(entry),
      });
    }
    const records = this.collect.records;
    this.collect.records = [];
    return new Promise((resolve, reject) => {
      this.exporter.export(records, (result) => {
        if (result.code === ExportResultCode.SUCCESS) resolve();
        else reject(result.error ?? new Error('the collector did not take the batch'));
      });
    });
  }

  async close(): Promise<void> {
    await this.exporter.shutdown().catch(() => undefined);
    await this.provider.shutdown().catch(() => undefined);
  }
}
