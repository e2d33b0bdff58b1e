// One Streamable HTTP session seen from the broker: a MessageTransport whose outgoing messages are routed
// to the right open HTTP response (the POST that carried a request, or the standalone GET stream).
import type { ServerResponse } from 'node:http';
import { errorResponse, isRequest, isResponse, type JsonRpcId, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { MessageTransport, SendOptions } from '../wire/transport.js';
import { callOf, type RefusedCall } from '../relay/protocol/refused-calls.js';
import { DEFAULT_KEEP_ALIVE_MS, HEADERS_WAIT_MS, isOpen, keepAlive, openEventStream, sseEvent, sseEventBytes, writeEvent } from './sse-stream.js';

export const DEFAULT_MAX_QUEUED_MESSAGES = 1000;

export interface HttpSessionOptions {
  sessionId: string;
  serverName: string;
  keepAliveMs?: number;
  maxQueuedMessages?: number;
  /** Called once when the session ends, so the endpoint forgets it. */
  onEnded?: (session: HttpSessionTransport) => void;
  /** A tools/call refused here (its id already in flight), never relayed: for the log. */
  onRefusedCall?: (call: RefusedCall) => void;
}

// 1 and "1" are different JSON-RPC ids, so keys carry the type.
type Key = string;
function keyOf(id: JsonRpcId): Key {
  return `${typeof id}:${String(id)}`;
}

function progressTokenOf(message: JsonRpcMessage): JsonRpcId | undefined {
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  const token = typeof meta === 'object' && meta !== null ? (meta as { progressToken?: unknown }).progressToken : undefined;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The HTTP response of one POST that contained requests; it stays open until each request is answered. */
interface PostExchange {
  res: ServerResponse;
  sse: boolean;
  /** Request ids still waiting for a response, with their original id values. */
  pending: Map<Key, JsonRpcId>;
  /** JSON mode: the request's slot, filled when its response arrives. */
  slots: Array<{ key: Key; response?: JsonRpcMessage }>;
  progressTokens: Key[];
  open: boolean;
  stopKeepAlive?: () => void;
}

interface StandaloneStream {
  res: ServerResponse;
  stopKeepAlive?: () => void;
}

export class HttpSessionTransport implements MessageTransport {
  readonly sessionId: string;
  readonly serverName: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;

  private readonly keepAliveMs: number;
  private readonly maxQueued: number;
  private readonly onEnded?: (session: HttpSessionTransport) => void;
  private readonly byRequest = new Map<Key, PostExchange>();
  private readonly byProgressToken = new Map<Key, PostExchange>();
  /** Open POST exchanges in the order they were opened (the last SSE one is the fallback stream). */
  private readonly exchanges: PostExchange[] = [];
  private standalone?: StandaloneStream;
  private readonly queue: JsonRpcMessage[] = [];
  /** The body a tools/call came alone in, until the relay takes it (http/request-lane.ts). */
  private readonly bodies = new WeakMap<JsonRpcMessage, Buffer>();
  private closed = false;
  /** performance.now() of the last message either way: idle sessions are reclaimed (session-reaper.ts). */
  lastActivity = performance.now();

  constructor(opts: HttpSessionOptions) {
    this.sessionId = opts.sessionId;
    this.serverName = opts.serverName;
    this.keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    this.maxQueued = opts.maxQueuedMessages ?? DEFAULT_MAX_QUEUED_MESSAGES;
    this.onEnded = opts.onEnded;
    this.onRefusedCall = opts.onRefusedCall;
  }

  private readonly onRefusedCall?: (call: RefusedCall) => void;

  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether the client has its standalone GET stream open (server-initiated messages go there first). */
  get hasStandaloneStream(): boolean {
    return this.standalone !== undefined;
  }

  /** Requests in flight or a GET stream open: the client is still there. */
  get busy(): boolean {
    return this.exchanges.length > 0 || this.standalone !== undefined;
  }

  async start(): Promise<void> {
    // Nothing to open: HTTP requests arrive through McpHttpEndpoint.
  }

  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) throw new Error(`MCP HTTP session ${this.sessionId} is closed`);
    this.lastActivity = performance.now();
    this.route(message, options);
  }

  /** Whether the answer to `id` may go out as bytes (sendBytes): its POST is an open event stream. */
  takesBytes(id: JsonRpcId): boolean {
    if (this.closed) return false;
    const exchange = this.byRequest.get(keyOf(id));
    return exchange !== undefined && exchange.sse && exchange.open;
  }

  /** The answer to `id` given as the JSON bytes of one message, newline ended (a result passed through): as send would write it. */
  sendBytes(json: Buffer, id: JsonRpcId): void {
    if (this.closed) return;
    this.lastActivity = performance.now();
    const key = keyOf(id);
    const exchange = this.byRequest.get(key);
    if (!exchange?.sse || !exchange.pending.delete(key)) return;
    this.byRequest.delete(key);
    this.streamAnswer(exchange, sseEventBytes(json));
  }

  takeRequestBytes(request: JsonRpcMessage): Buffer | undefined {
    const body = this.bodies.get(request);
    if (body) this.bodies.delete(request);
    return body;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Requests still in flight would otherwise hang in the client until its own timeout.
    for (const exchange of [...this.exchanges]) {
      for (const id of [...exchange.pending.values()]) {
        this.answer(exchange, errorResponse(id, -32000, 'MCP session closed'));
      }
      this.finish(exchange);
    }
    if (this.standalone) this.endStandalone(this.standalone);
    this.queue.length = 0;
    this.onEnded?.(this);
    this.onclose?.();
  }

  /**
   * Used by McpHttpEndpoint: serve a POST whose body (one message: batches are refused) is already
   * validated. `headers` go on the HTTP response (e.g. Mcp-Session-Id). The message reaches `onmessage`
   * as the exact parsed object. `body`: the bytes it was parsed from.
   */
  handlePost(res: ServerResponse, message: JsonRpcMessage, opts: { sse: boolean; headers?: Record<string, string>; body?: Buffer }): void {
    this.lastActivity = performance.now();
    const messages = [message];
    if (opts.body && isRequest(message) && message.method === 'tools/call') this.bodies.set(message, opts.body);
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      // Only notifications and responses: acknowledge, nothing will come back on this POST.
      res.writeHead(202, { ...opts.headers });
      res.end();
      this.deliverAll(messages);
      return;
    }

    const exchange: PostExchange = {
      res,
      sse: opts.sse,
      pending: new Map(),
      slots: [],
      progressTokens: [],
      open: true,
    };
    // Register every id before delivering anything: the broker may answer synchronously.
    const duplicates: Array<{ id: JsonRpcId; slot: number }> = [];
    const forward: JsonRpcMessage[] = [];
    for (const message of messages) {
      if (!isRequest(message)) {
        forward.push(message);
        continue;
      }
      const key = keyOf(message.id);
      exchange.slots.push({ key });
      if (this.byRequest.has(key) || exchange.pending.has(key)) {
        // A second in-flight request with the same id could never be routed: refuse it here.
        duplicates.push({ id: message.id, slot: exchange.slots.length - 1 });
        continue;
      }
      exchange.pending.set(key, message.id);
      this.byRequest.set(key, exchange);
      const token = progressTokenOf(message);
      if (token !== undefined) {
        exchange.progressTokens.push(keyOf(token));
        this.byProgressToken.set(keyOf(token), exchange);
      }
      forward.push(message);
    }
    this.exchanges.push(exchange);

    if (exchange.sse) {
      openEventStream(res, opts.headers);
      exchange.stopKeepAlive = keepAlive(res, this.keepAliveMs, HEADERS_WAIT_MS);
    } else if (opts.headers) {
      for (const [name, value] of Object.entries(opts.headers)) res.setHeader(name, value);
    }
    // A client that goes away only loses its answers; the broker keeps running.
    res.on('close', () => {
      if (exchange.open) this.finish(exchange);
    });
    res.on('error', () => {
      if (exchange.open) this.finish(exchange);
    });

    for (const { id, slot } of duplicates) {
      const why = `request id ${JSON.stringify(id)} is already in flight`;
      if (isRequest(message) && message.method === 'tools/call') this.onRefusedCall?.(callOf(message, why));
      const refusal = errorResponse(id, -32600, `Invalid Request: ${why}`);
      if (exchange.sse) this.write(res, refusal);
      else exchange.slots[slot]!.response = refusal;
    }
    if (exchange.pending.size === 0) this.complete(exchange);
    this.deliverAll(forward);
  }

  /** Used by McpHttpEndpoint for GET: returns false when a standalone stream is already open (409). */
  openStandalone(res: ServerResponse, headers?: Record<string, string>): boolean {
    if (this.standalone || this.closed) return false;
    openEventStream(res, headers);
    res.flushHeaders();
    this.lastActivity = performance.now();
    const stream: StandaloneStream = { res };
    stream.stopKeepAlive = keepAlive(res, this.keepAliveMs);
    this.standalone = stream;
    const drop = (): void => {
      if (this.standalone === stream) this.endStandalone(stream);
    };
    res.on('close', drop);
    res.on('error', drop);
    // Anything that arrived while no stream was open goes out now, in order.
    for (const message of this.queue.splice(0)) this.write(res, message);
    return true;
  }

  private deliverAll(messages: JsonRpcMessage[]): void {
    for (const message of messages) {
      try {
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  private route(message: JsonRpcMessage, options?: SendOptions): void {
    if (isResponse(message)) {
      // A response only belongs on the stream of the POST that carried its request; otherwise drop it.
      if (message.id === null) return;
      const exchange = this.byRequest.get(keyOf(message.id));
      if (exchange) this.answer(exchange, message);
      return;
    }
    const related = options?.relatedRequestId;
    if (related !== undefined) {
      const exchange = this.byRequest.get(keyOf(related));
      if (exchange?.sse) return this.write(exchange.res, message);
    }
    if (message.method === 'notifications/progress') {
      const token = (message.params as { progressToken?: unknown } | undefined)?.progressToken;
      if (typeof token === 'string' || typeof token === 'number') {
        const exchange = this.byProgressToken.get(keyOf(token));
        if (exchange?.sse) return this.write(exchange.res, message);
      }
    }
    if (this.standalone) return this.write(this.standalone.res, message);
    const latest = [...this.exchanges].reverse().find((e) => e.sse && e.open);
    if (latest) return this.write(latest.res, message);
    this.enqueue(message);
  }

  private enqueue(message: JsonRpcMessage): void {
    this.queue.push(message);
    if (this.queue.length > this.maxQueued) {
      this.queue.shift();
      this.onerror?.(new Error(`MCP HTTP session ${this.sessionId}: outgoing queue full, dropped the oldest message`));
    }
  }

  private answer(exchange: PostExchange, response: JsonRpcMessage & { id: JsonRpcId | null }): void {
    if (response.id === null) return;
    const key = keyOf(response.id);
    if (!exchange.pending.delete(key)) return;
    if (this.byRequest.get(key) === exchange) this.byRequest.delete(key);
    if (exchange.sse) return this.streamAnswer(exchange, sseEvent(response));
    const slot = exchange.slots.find((s) => s.key === key && !s.response);
    if (slot) slot.response = response;
    if (exchange.pending.size === 0) this.complete(exchange);
  }

  /** One answer event on a POST's stream, its request already taken off; the last one ends the stream in the same write. */
  private streamAnswer(exchange: PostExchange, event: string | Buffer): void {
    if (exchange.pending.size === 0) return this.complete(exchange, event);
    writeEvent(exchange.res, event);
  }

  /** Every request of the POST is answered: send the JSON body, or end the SSE stream (with `last`). */
  private complete(exchange: PostExchange, last?: string | Buffer): void {
    if (!exchange.open) return;
    const res = exchange.res;
    if (!exchange.sse && !res.headersSent && !res.destroyed) {
      const responses = exchange.slots.flatMap((slot) => (slot.response ? [slot.response] : []));
      const body = JSON.stringify(responses[0]);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
      res.end(body);
    }
    this.finish(exchange, last);
  }

  /** Forget the exchange; later answers for its requests are dropped. */
  private finish(exchange: PostExchange, last?: string | Buffer): void {
    if (!exchange.open) return;
    exchange.open = false;
    exchange.stopKeepAlive?.();
    for (const key of exchange.pending.keys()) {
      if (this.byRequest.get(key) === exchange) this.byRequest.delete(key);
    }
    for (const key of exchange.progressTokens) {
      if (this.byProgressToken.get(key) === exchange) this.byProgressToken.delete(key);
    }
    const index = this.exchanges.indexOf(exchange);
    if (index >= 0) this.exchanges.splice(index, 1);
    if (!exchange.res.writableEnded && !exchange.res.destroyed) {
      if (exchange.res.headersSent) exchange.res.end(last);
      else exchange.res.destroy(); // JSON mode torn down before all answers: nothing valid to send
    }
  }

  private endStandalone(stream: StandaloneStream): void {
    stream.stopKeepAlive?.();
    if (this.standalone === stream) this.standalone = undefined;
    if (!stream.res.writableEnded && !stream.res.destroyed) stream.res.end();
  }

  private write(res: ServerResponse, message: JsonRpcMessage): void {
    if (isOpen(res)) res.write(sseEvent(message));
  }
}
