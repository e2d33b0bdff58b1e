// Requests and notifications both ways over one message transport (the relay-mode control socket).
// A handler's failure answers that request with an error; it never takes the channel down.
import { ErrorCode, errorResponse, isRequest, isResponse, isResult, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { MessageTransport } from '../wire/transport.js';

type Handler = (params: Record<string, unknown>) => unknown;

export class ControlChannel {
  onclose?: () => void;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private readonly handlers = new Map<string, Handler>();
  private closed = false;

  constructor(private readonly transport: MessageTransport) {}

  async start(): Promise<void> {
    this.transport.onmessage = (m) => this.receive(m);
    this.transport.onclose = () => this.closedByPeer();
    this.transport.onerror = () => undefined;
    await this.transport.start();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** One handler per method, for requests and notifications alike. */
  handle(method: string, handler: Handler): void {
    this.handlers.set(method, handler);
  }

  /** `timeoutMs`: give up waiting (a later answer is dropped). Without it, waits until the channel closes. */
  request<T>(method: string, params: object, timeoutMs?: number): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the Countersign control connection is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (timeoutMs !== undefined) {
        setTimeout(() => {
          if (!this.waiting.delete(id)) return;
          reject(new Error(`no answer to ${method} within ${timeoutMs} ms`));
        }, timeoutMs).unref();
      }
      this.transport.send({ jsonrpc: '2.0', id, method, params: params as Record<string, unknown> }).catch((err: Error) => {
        this.waiting.delete(id);
        reject(err);
      });
    });
  }

  notify(method: string, params: object): void {
    if (this.closed) return;
    this.transport.send({ jsonrpc: '2.0', method, params: params as Record<string, unknown> }).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.transport.close();
    this.closedByPeer();
  }

  private closedByPeer(): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.values()) w.reject(new Error('the Countersign control connection closed'));
    this.waiting.clear();
    this.onclose?.();
  }

  private receive(message: JsonRpcMessage): void {
    if (isResponse(message)) {
      const w = typeof message.id === 'number' ? this.waiting.get(message.id) : undefined;
      if (!w) return;
      this.waiting.delete(message.id as number);
      if (isResult(message)) w.resolve(message.result);
      else w.reject(new Error(message.error.message));
      return;
    }
    if (!('method' in message) || typeof message.method !== 'string') return;
    const handler = this.handlers.get(message.method);
    const params = message.params ?? {};
    if (!isRequest(message)) {
      try {
        handler?.(params);
      } catch {
        // A bad notification is dropped; the peer gets nothing back for it anyway.
      }
      return;
    }
    const { id } = message;
    if (!handler) {
      this.transport.send(errorResponse(id, ErrorCode.MethodNotFound, `unknown control method ${message.method}`)).catch(() => undefined);
      return;
    }
    Promise.resolve()
      .then(() => handler(params))
      .then(
        (result) => this.transport.send({ jsonrpc: '2.0', id, result: (result ?? {}) as Record<string, unknown> }),
        (err: Error) => this.transport.send(errorResponse(id, ErrorCode.InternalError, err.message)),
      )
      .catch(() => undefined);
  }
}
