// The message-level transport every broker part speaks. Same shape as the SDK's Transport, but typed
// with our loose JSON-RPC messages so unknown fields are never stripped or re-parsed.
import type { JsonRpcId, JsonRpcMessage } from '../../shared/jsonrpc.js';

export interface SendOptions {
  /** The downstream request this message belongs to, so HTTP can route it to that request's stream. */
  relatedRequestId?: JsonRpcId;
}

export interface MessageTransport {
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  sessionId?: string;
  setProtocolVersion?: (version: string) => void;
}
