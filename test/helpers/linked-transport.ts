// Two linked in-memory transports, like the SDK's InMemoryTransport but asynchronous: each message is
// delivered on a later turn of the event loop, in order, as a real pipe or socket would. Both ends fit
// the SDK's Transport (for a Client or an McpServer) and the broker's MessageTransport.
import type { JsonRpcMessage } from '../../shared/jsonrpc.js';
import type { MessageTransport } from '../../electron/broker/wire/transport.js';

export class LinkedTransport implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  other?: LinkedTransport;
  private started = false;
  private closed = false;
  private readonly queue: JsonRpcMessage[] = [];

  async start(): Promise<void> {
    this.started = true;
    this.flush();
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const other = this.other;
    if (this.closed || !other || other.closed) throw new Error('Not connected');
    // A copy, as a wire would make: neither side can change what the other holds.
    other.queue.push(structuredClone(message));
    setImmediate(() => other.flush());
  }

  private flush(): void {
    if (!this.started) return;
    while (this.queue.length && !this.closed) this.onmessage?.(this.queue.shift()!);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const other = this.other;
    this.onclose?.();
    if (other && !other.closed) setImmediate(() => void other.close());
  }
}

export function linkedPair(): [LinkedTransport, LinkedTransport] {
  const a = new LinkedTransport();
  const b = new LinkedTransport();
  a.other = b;
  b.other = a;
  return [a, b];
}
