// 2026-07-28 clients over HTTP have no session: each POST stands alone, with no Mcp-Session-Id. Their
// requests share one relayed connection per server and client (a "pool"), so a stdio server is not
// started per request. Ids are rewritten on the way in (two clients may both send id 1) and restored on
// the way out; each answer, and each notification that belongs to a request, goes back on its own POST.
import type { ServerResponse } from 'node:http';
import { errorResponse, isNotification, isRequest, isResponse, type JsonRpcId, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { subscriptionIdOf, withSubscriptionId } from '../relay/protocol/subscriptions.js';
import type { MessageTransport, SendOptions } from '../wire/transport.js';
import { DEFAULT_KEEP_ALIVE_MS, HEADERS_WAIT_MS, keepAlive, openEventStream, sseEvent, writeEvent } from './sse-stream.js';

interface Exchange {
  res: ServerResponse;
  sse: boolean;
  /** Our ids still waiting for an answer. */
  waiting: Set<string>;
  /** JSON mode: the request's slot. */
  slots: Array<{ ours: string; response?: JsonRpcMessage }>;
  open: boolean;
  stopKeepAlive?: () => void;
}

export interface StatelessOptions {
  serverName: string;
  keepAliveMs?: number;
  onEnded?: (transport: StatelessHttpTransport) => void;
}

export class StatelessHttpTransport implements MessageTransport {
  readonly serverName: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  /** performance.now() of the last message either way: idle pools are reclaimed. */
  lastActivity = performance.now();
  private nextId = 1;
  private readonly inflight = new Map<string, { exchange: Exchange; original: JsonRpcId }>();
  private readonly exchanges = new Set<Exchange>();
  private closed = false;

  constructor(private readonly opts: StatelessOptions) {
    this.serverName = opts.serverName;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Requests still being answered (a pool with any is not idle). */
  get busy(): boolean {
    return this.exchanges.size > 0;
  }

  async start(): Promise<void> {}

  /** One message (batches are refused by the endpoint). */
  handlePost(res: ServerResponse, message: JsonRpcMessage, opts: { sse: boolean }): void {
    this.lastActivity = performance.now();
    const messages = [message];
    const requests = messages.filter(isRequest);
    const forward: JsonRpcMessage[] = [];
    const exchange: Exchange = { res, sse: opts.sse, waiting: new Set(), slots: [], open: true };
    for (const message of messages) {
      if (isRequest(message)) {
        const ours = `st-${this.nextId++}`;
        this.inflight.set(ours, { exchange, original: message.id });
        exchange.waiting.add(ours);
        exchange.slots.push({ ours });
        forward.push({ ...message, id: ours });
      } else if (isNotification(message)) {
        // A cancellation names the client's id, which only its own POST knows; cancelling is closing that POST.
        if (message.method !== 'notifications/cancelled') forward.push(message);
      }
      // Responses: a stateless client is never asked anything, so there is nothing for them to answer.
    }
    if (requests.length === 0) {
      res.writeHead(202).end();
      this.deliver(forward);
      return;
    }
    this.exchanges.add(exchange);
    if (exchange.sse) {
      openEventStream(res);
      // Headers wait for the first event, as in mcp-http-session.ts: a quick answer leaves in one write.
      exchange.stopKeepAlive = keepAlive(res, this.opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS, HEADERS_WAIT_MS);
    }
    // The client went away before its answers: what it still waits for is cancelled.
    res.on('close', () => this.abandon(exchange));
    this.deliver(forward);
  }

  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) throw new Error('stateless MCP connection closed');
    this.lastActivity = performance.now();
    if (isResponse(message)) {
      const key = message.id === null ? undefined : String(message.id);
      const entry = key === undefined ? undefined : this.inflight.get(key);
      if (!entry || key === undefined) return;
      this.inflight.delete(key);
      this.answer(entry.exchange, key, this.restoreIds({ ...message, id: entry.original }, key, entry.original));
      return;
    }
    if (isRequest(message)) {
      // No stream could carry a server's request to a stateless client: say so to the server at once.
      queueMicrotask(() => this.onmessage?.(errorResponse(message.id, -32601, 'the client is stateless (2026-07-28) and takes no server requests')));
      return;
    }
    const related = options?.relatedRequestId;
    const entry = related === undefined ? undefined : this.inflight.get(String(related));
    if (entry?.exchange.sse) writeEvent(entry.exchange.res, sseEvent(this.restoreIds(message, String(related), entry.original)));
    // Anything else belongs to no request: a stateless client has no stream for it.
  }

  /** What names the request by our id (a cancellation, a subscription's stamp) names it by the client's. */
  private restoreIds(message: JsonRpcMessage, ours: string, original: JsonRpcId): JsonRpcMessage {
    const params = (message as { params?: Record<string, unknown> }).params;
    if (message.method === 'notifications/cancelled' && params) return { ...message, params: { ...params, requestId: original } } as JsonRpcMessage;
    return subscriptionIdOf(message) === ours ? withSubscriptionId(message, original) : message;
  }

  private answer(exchange: Exchange, ours: string, response: JsonRpcMessage): void {
    if (!exchange.waiting.delete(ours)) return;
    if (exchange.sse) {
      const event = sseEvent(response);
      // The last answer ends the stream in the same write.
      if (exchange.waiting.size === 0) return this.finish(exchange, event);
      writeEvent(exchange.res, event);
    } else {
      const slot = exchange.slots.find((s) => s.ours === ours);
      if (slot) slot.response = response;
    }
    if (exchange.waiting.size === 0) this.complete(exchange);
  }

  private complete(exchange: Exchange): void {
    if (!exchange.open) return;
    const { res } = exchange;
    if (!exchange.sse && !res.headersSent && !res.destroyed) {
      const responses = exchange.slots.flatMap((s) => (s.response ? [s.response] : []));
      const body = JSON.stringify(responses[0]);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
    }
    this.finish(exchange);
  }

  private finish(exchange: Exchange, last?: string): void {
    if (!exchange.open) return;
    exchange.open = false;
    exchange.stopKeepAlive?.();
    this.exchanges.delete(exchange);
    if (!exchange.res.writableEnded && !exchange.res.destroyed) {
      if (exchange.res.headersSent) exchange.res.end(last);
      else exchange.res.destroy();
    }
  }

  private abandon(exchange: Exchange): void {
    if (!exchange.open) return;
    const left = [...exchange.waiting];
    exchange.waiting.clear();
    this.finish(exchange);
    for (const ours of left) {
      this.inflight.delete(ours);
      this.deliver([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: ours, reason: 'the client closed its HTTP request' } }]);
    }
  }

  private deliver(messages: JsonRpcMessage[]): void {
    for (const message of messages) {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const exchange of [...this.exchanges]) {
      for (const ours of [...exchange.waiting]) {
        const entry = this.inflight.get(ours);
        if (entry) this.answer(exchange, ours, errorResponse(entry.original, -32000, 'MCP connection closed'));
      }
      this.finish(exchange);
    }
    this.inflight.clear();
    this.opts.onEnded?.(this);
    this.onclose?.();
  }
}
