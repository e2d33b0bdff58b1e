// The message-level transport every broker part speaks. Same shape as the SDK's Transport, but typed
// with our loose JSON-RPC messages so unknown fields are never stripped or re-parsed.
import type { JsonRpcId, JsonRpcMessage } from '../../../shared/jsonrpc.js';

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
  /** Writes one message given as its JSON bytes, newline ended (a stdio server: http/request-lane.ts). */
  sendLine?(line: Buffer): Promise<void>;
}

/** A downstream that can write a server's result as its own bytes (an HTTP session: http/result-lane.ts). */
export interface ByteAnswers {
  /** Whether the answer to `id` may go out as bytes now. */
  takesBytes(id: JsonRpcId): boolean;
  /** Writes one message given as JSON bytes (ending in a newline) as the answer to `id`, as send would. */
  sendBytes(json: Buffer, id: JsonRpcId): void;
  /** The body `request` came in, when it came alone in it; asked once (the bytes are let go). */
  takeRequestBytes(request: JsonRpcMessage): Buffer | undefined;
}

export function takesByteAnswers(t: MessageTransport): t is MessageTransport & ByteAnswers {
  const maybe = t as Partial<ByteAnswers>;
  return typeof maybe.takesBytes === 'function' && typeof maybe.sendBytes === 'function' && typeof maybe.takeRequestBytes === 'function';
}
