// The broker's own short session with a server: initialize, list every tool, leave. Used to record or
// pin what a server offers when no client has connected yet. It goes through the same relay, so the
// same checks (launch consent, policy) apply.
import { randomUUID } from 'node:crypto';
import { isResponse, isResult, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { MessageTransport } from '../wire/transport.js';

export const PROBE_PROTOCOL_VERSION = '2025-11-25';

/** An in-memory client end: the relay sends to it, it answers what it asked for. */
export class ProbeTransport implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  private readonly waiting = new Map<string, (m: JsonRpcMessage) => void>();
  private closed = false;

  async start(): Promise<void> {}

  async send(message: JsonRpcMessage): Promise<void> {
    if (isResponse(message)) {
      this.waiting.get(String(message.id))?.(message);
      this.waiting.delete(String(message.id));
    } else if ('id' in message && 'method' in message) {
      // A server request (sampling, roots…): a probe has nothing to offer.
      queueMicrotask(() =>
        this.onmessage?.({ jsonrpc: '2.0', id: message.id as string, error: { code: -32601, message: 'not supported by the Countersign probe' } }),
      );
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const resolve of this.waiting.values()) resolve({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'probe closed' } });
    this.waiting.clear();
    this.onclose?.();
  }

  request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the server did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      timer.unref();
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        if (isResult(m)) resolve(m.result);
        else reject(new Error('error' in m ? String((m as { error: { message: string } }).error.message) : 'no answer'));
      });
      this.onmessage?.({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string): void {
    this.onmessage?.({ jsonrpc: '2.0', method });
  }
}

export async function probeTools(transport: ProbeTransport, timeoutMs: number): Promise<ToolDefinition[]> {
  await transport.request(
    'initialize',
    {
      protocolVersion: PROBE_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'countersign-probe', version: '1' },
    },
    timeoutMs,
  );
  transport.notify('notifications/initialized');
  const tools: ToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await transport.request('tools/list', cursor ? { cursor } : {}, timeoutMs);
    if (Array.isArray(result.tools)) tools.push(...(result.tools as ToolDefinition[]));
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
    if (!cursor) break;
  }
  return tools;
}
