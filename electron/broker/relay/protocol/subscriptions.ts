// 2026-07-28 `subscriptions/listen`: the subscription's id is the listen request's JSON-RPC id, and the
// server stamps it on the acknowledgement, on every notification of that subscription and on the closing
// result (`_meta["io.modelcontextprotocol/subscriptionId"]`). Wherever Countersign rewrites request ids,
// it rewrites these too, or the client cannot match them (the Inspector waits for its ack forever).
import type { JsonRpcId, JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import { META } from './era.js';

function metaHolder(message: JsonRpcMessage): Record<string, unknown> | undefined {
  const holder = 'result' in message ? message.result : (message as { params?: unknown }).params;
  const meta = typeof holder === 'object' && holder !== null ? (holder as { _meta?: unknown })._meta : undefined;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/** The subscription a notification (or a listen result) belongs to, if it is stamped. */
export function subscriptionIdOf(message: JsonRpcMessage): JsonRpcId | undefined {
  const id = metaHolder(message)?.[META.subscriptionId];
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The same message stamped with `id` instead (a copy; the original is untouched). */
export function withSubscriptionId<T extends JsonRpcMessage>(message: T, id: JsonRpcId): T {
  const meta = metaHolder(message);
  if (!meta) return message;
  const stamped = { ...meta, [META.subscriptionId]: id };
  if ('result' in message) return { ...message, result: { ...(message.result as object), _meta: stamped } };
  const params = (message as { params?: Record<string, unknown> }).params;
  return { ...message, params: { ...params, _meta: stamped } };
}
