// A remote (Streamable HTTP) server upstream. The SDK client transport speaks the wire protocol;
// we only adapt its types and inject the configured headers (never the client's own).
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcMessage } from '../../shared/jsonrpc.js';
import { ownSignalFetch } from './own-signal-fetch.js';
import { eraHeadersFetch } from './protocol/http-headers.js';
import type { MessageTransport } from './transport.js';

export class HttpUpstream implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  private readonly inner: StreamableHTTPClientTransport;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.inner = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: eraHeadersFetch(ownSignalFetch()) });
    this.inner.onmessage = (m) => this.onmessage?.(m as unknown as JsonRpcMessage);
    this.inner.onerror = (e) => this.onerror?.(e);
    this.inner.onclose = () => this.onclose?.();
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JsonRpcMessage): Promise<void> {
    return this.inner.send(message as unknown as JSONRPCMessage);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }

  async close(): Promise<void> {
    // Tell the server the session is over, as the spec asks; ignore a server that does not care.
    await this.inner.terminateSession().catch(() => undefined);
    await this.inner.close();
  }
}
