// The UI API over HTTP: one RPC route that binds the typed CountersignApi, and an SSE stream of events.
// Every request has already passed the Host/Origin/token guard.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CountersignApi } from '../../../shared/api.js';
import { isApiMethod, parseApiArgs } from '../../../shared/api-schema.js';
import { readJsonBody, sendRejection } from './request-guard.js';
import { keepAlive, openEventStream, sseEvent } from './sse-stream.js';

const MAX_API_BODY = 1024 * 1024;
const KEEPALIVE_MS = 15_000;

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export class ApiBridge {
  private readonly streams = new Set<ServerResponse>();

  constructor(private readonly api: CountersignApi) {}

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/api/rpc') return this.rpc(req, res);
    if (path === '/api/events') return this.events(req, res);
    json(res, 404, { ok: false, error: `no API route ${path}` });
  }

  private async rpc(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const body = await readJsonBody(req, MAX_API_BODY);
    if (!body.ok) return sendRejection(res, body, 'drain');
    const value = body.value as { method?: unknown; args?: unknown } | null;
    const method = value?.method;
    if (!isApiMethod(method)) {
      json(res, 400, { ok: false, error: `unknown API method ${JSON.stringify(method)}` });
      return;
    }
    const parsed = parseApiArgs(method, value?.args ?? []);
    if (!parsed.ok) {
      json(res, 400, { ok: false, error: parsed.error });
      return;
    }
    try {
      const fn = this.api[method] as (...args: unknown[]) => Promise<unknown>;
      const result = await fn.apply(this.api, parsed.args);
      json(res, 200, { ok: true, value: result ?? null });
    } catch (err) {
      json(res, 422, { ok: false, error: (err as Error).message });
    }
  }

  private events(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'GET') {
      res.writeHead(405, { Allow: 'GET' }).end();
      return;
    }
    openEventStream(res, undefined, 'no-store');
    res.write(': connected\n\n');
    this.streams.add(res);
    const unsubscribe = this.api.subscribe((event) => res.write(sseEvent(event, 'broker')));
    const stopKeepAlive = keepAlive(res, KEEPALIVE_MS, undefined, 'keepalive');
    const stop = (): void => {
      stopKeepAlive();
      unsubscribe();
      this.streams.delete(res);
    };
    req.on('close', stop);
    res.on('close', stop);
  }

  closeAll(): void {
    for (const s of this.streams) s.end();
  }
}
