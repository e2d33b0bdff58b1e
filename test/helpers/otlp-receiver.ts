// An OTLP/HTTP logs receiver for the tests: a real node:http server that decodes what it is sent with
// the official OTLP definitions (test/fixtures/otlp-proto, loaded by protobufjs): protobuf bodies with
// ExportLogsServiceRequest.decode, JSON bodies with its fromObject. It can be down (503, or its port
// closed), or hold every request open until let go.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { ROOT } from './paths.js';

const PROTO_DIR = join(ROOT, 'test/fixtures/otlp-proto');

export type AttrValue = string | number | boolean | AttrValue[];

export interface ReceivedRecord {
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  resource: Record<string, AttrValue>;
  scope: string;
  timeUnixNano: string;
  severityNumber: number;
  severityText: string;
  eventName: string;
  body: string;
  attributes: Record<string, AttrValue>;
}

let requestType: Promise<protobuf.Type> | undefined;

/** ExportLogsServiceRequest from the official .proto files. */
export function exportLogsRequest(): Promise<protobuf.Type> {
  requestType ??= (async () => {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
    await root.load('opentelemetry/proto/collector/logs/v1/logs_service.proto', { keepCase: false });
    return root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
  })();
  return requestType;
}

type AnyValue = { stringValue?: string; intValue?: unknown; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };
const valueOf = (v: AnyValue | undefined): AttrValue => {
  if (!v) return '';
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return '';
};
const attrs = (list: Array<{ key: string; value?: AnyValue }> | undefined): Record<string, AttrValue> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

/** The records of one request body, decoded with the official definitions. */
export async function decodeLogs(body: Buffer, contentType: string, headers: ReceivedRecord['headers'] = {}): Promise<ReceivedRecord[]> {
  const type = await exportLogsRequest();
  const message = contentType.includes('json') ? type.fromObject(JSON.parse(body.toString('utf8')) as Record<string, unknown>) : type.decode(body);
  const request = type.toObject(message, { longs: String, enums: Number, defaults: false }) as {
    resourceLogs?: Array<{
      resource?: { attributes?: Array<{ key: string; value?: AnyValue }> };
      scopeLogs?: Array<{
        scope?: { name?: string };
        logRecords?: Array<{
          timeUnixNano?: string;
          severityNumber?: number;
          severityText?: string;
          eventName?: string;
          body?: AnyValue;
          attributes?: Array<{ key: string; value?: AnyValue }>;
        }>;
      }>;
    }>;
  };
  return (request.resourceLogs ?? []).flatMap((rl) =>
    (rl.scopeLogs ?? []).flatMap((sl) =>
      (sl.logRecords ?? []).map((r) => ({
        contentType,
        headers,
        resource: attrs(rl.resource?.attributes),
        scope: sl.scope?.name ?? '',
        timeUnixNano: String(r.timeUnixNano ?? ''),
        severityNumber: r.severityNumber ?? 0,
        severityText: r.severityText ?? '',
        eventName: r.eventName ?? '',
        body: String(valueOf(r.body)),
        attributes: attrs(r.attributes),
      })),
    ),
  );
}

export type ReceiverMode = 'ok' | 'unavailable' | 'hold';

export interface OtlpReceiver {
  url: string;
  port: number;
  records: ReceivedRecord[];
  /** Requests answered (any status), and requests held open right now. */
  requests: number;
  held: number;
  setMode(mode: ReceiverMode): void;
  /** Answers every held request with 200 (they were decoded and kept when they came). */
  release(): void;
  /** Closes the port (connections refused), then opens the same port again. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** The seqs received, each once, sorted. */
  seqs(): number[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let mode: ReceiverMode = 'ok';
  const heldResponses: ServerResponse[] = [];
  const receiver: OtlpReceiver = {
    url: '',
    port: 0,
    records: [],
    requests: 0,
    held: 0,
    setMode: (m) => void (mode = m),
    release: () => {
      // One whose client is gone (it gave up, or was killed) is not answered: its records were never taken.
      for (const res of heldResponses.splice(0))
        if (!res.destroyed && !res.socket?.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      receiver.held = 0;
    },
    stop: async () => {
      receiver.release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
    restart: async () => {
      server = make();
      await new Promise<void>((resolve) => server.listen(receiver.port, '127.0.0.1', resolve));
    },
    seqs: () => [...new Set(receiver.records.map((r) => Number(r.attributes['countersign.seq'])))].sort((a, b) => a - b),
    close: async () => {
      receiver.release();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (mode === 'unavailable') {
      receiver.requests++;
      // Not retryable for the exporter itself (it would retry for its whole timeout): Countersign's own backoff retries.
      return res.writeHead(400, { 'content-type': 'text/plain' }).end('down for the test');
    }
    const contentType = String(req.headers['content-type'] ?? '');
    const records = await decodeLogs(Buffer.concat(chunks), contentType, req.headers);
    if (mode === 'hold') {
      // Taken only when answered: a held request the client gives up on counts for nothing.
      heldResponses.push(res);
      receiver.held++;
      res.on('finish', () => receiver.records.push(...records));
      return;
    }
    receiver.records.push(...records);
    receiver.requests++;
    res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' }).end();
  };
  const make = (): Server =>
    createServer((req, res) => {
      handle(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  let server = make();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/v1/logs`;
  return receiver;
}
