// JSON-RPC 2.0 message shapes, kept loose on purpose: unknown fields must pass through untouched.

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcError {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
  [extra: string]: unknown;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResult | JsonRpcError;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return 'method' in m && 'id' in m;
}

export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  return 'method' in m && !('id' in m);
}

export function isResponse(m: JsonRpcMessage): m is JsonRpcResult | JsonRpcError {
  return !('method' in m) && ('result' in m || 'error' in m);
}

/** Checks the envelope only; params and results stay opaque. Returns a reason when invalid. */
export function checkEnvelope(value: unknown): { ok: true; message: JsonRpcMessage } | { ok: false; reason: string } {
  if (!isObject(value)) return { ok: false, reason: 'a JSON-RPC message must be an object' };
  if (value.jsonrpc !== '2.0') return { ok: false, reason: 'jsonrpc must be "2.0"' };
  if ('method' in value) {
    if (typeof value.method !== 'string') return { ok: false, reason: 'method must be a string' };
    if ('params' in value && value.params !== undefined && !isObject(value.params)) {
      return { ok: false, reason: 'params must be an object' };
    }
    if ('id' in value && !isId(value.id)) return { ok: false, reason: 'id must be a string or a number' };
    // A notification is never answered, so it could never be told a decision: a call needs an id.
    if (!('id' in value) && value.method === 'tools/call')
      return { ok: false, reason: 'a tools/call needs an id (sent as a notification, it could not be answered)' };
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  if ('result' in value) {
    if (!isId(value.id)) return { ok: false, reason: 'a response needs an id' };
    if (!isObject(value.result)) return { ok: false, reason: 'result must be an object' };
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  if ('error' in value) {
    const e = value.error;
    if (!isObject(e) || typeof e.code !== 'number' || typeof e.message !== 'string') {
      return { ok: false, reason: 'error must have a numeric code and a message' };
    }
    if (value.id !== null && !isId(value.id)) return { ok: false, reason: 'id must be a string, a number or null' };
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  return { ok: false, reason: 'not a request, notification or response' };
}

// Standard and MCP error codes.
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Countersign: the upstream server is unavailable or went away. */
  ServerUnavailable: -32000,
  /** Countersign: the upstream server took too long. */
  UpstreamTimeout: -32001,
  RequestTimeout: -32001,
} as const;

export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcError {
  const error: JsonRpcErrorObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}

export function isResult(m: JsonRpcMessage): m is JsonRpcResult {
  return 'result' in m && !('method' in m);
}
