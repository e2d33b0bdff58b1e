// A remote (Streamable HTTP) server upstream. The SDK client transport speaks the wire protocol;
// we only adapt its types and inject the configured headers (never the client's own). The SDK (and
// the zod schemas it builds) is loaded on the first start: a broker with no remote server never
// holds it (broker idle memory).
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { ownSignalFetch } from './own-signal-fetch.js';
import { eraHeadersFetch } from '../relay/protocol/http-headers.js';
import type { MessageTransport } from '../wire/transport.js';

export class HttpUpstream implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  private inner?: StreamableHTTPClientTransport;
  private protocolVersion?: string;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async start(): Promise<void> {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    if (this.closed) throw new Error('the connection was closed before it started');
    const inner = new StreamableHTTPClientTransport(new URL(this.url), { requestInit: { headers: this.headers }, fetch: eraHeadersFetch(ownSignalFetch()) });
    inner.onmessage = (m) => this.onmessage?.(m as unknown as JsonRpcMessage);
    inner.onerror = (e) => this.onerror?.(e);
    inner.onclose = () => this.onclose?.();
    if (this.protocolVersion) inner.setProtocolVersion(this.protocolVersion);
    this.inner = inner;
    return inner.start();
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (!this.inner) return Promise.reject(new Error('the connection to the server has not started'));
    return this.inner.send(message as unknown as JSONRPCMessage);
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner?.setProtocolVersion(version);
  }

  async close(): Promise<void> {
    this.closed = true;
    const inner = this.inner;
    if (!inner) return void this.onclose?.();
    // Tell the server the session is over, as the spec asks; ignore a server that does not care.
    await inner.terminateSession().catch(() => undefined);
    await inner.close();
  }
}
