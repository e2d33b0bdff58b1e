// The two MCP revisions Countersign speaks, told apart per request: 2025-11-25 (and earlier) negotiate once
// with `initialize`; 2026-07-28 carries its revision, client and capabilities in every request's `_meta`
// (the "envelope"), has no initialize, and requires `resultType` on every result.
// Wire vocabulary only (no SDK import): `connect` loads this and must stay small.
import type { JsonRpcMessage } from '../../../../shared/jsonrpc.js';

/** The first revision of the stateless ("modern") era. Revisions are dates, so they compare as strings. */
export const MODERN_REVISION = '2026-07-28';
export const LEGACY_REVISION = '2025-11-25';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The envelope keys a 2026-07-28 request carries; Countersign's own requests repeat the client's. */
const ENVELOPE_KEYS = [META.protocolVersion, META.clientInfo, META.clientCapabilities] as const;

export function isModernRevision(version: unknown): version is string {
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= MODERN_REVISION;
}

function metaOf(message: JsonRpcMessage): Record<string, unknown> | undefined {
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined;
}

/** The 2026-07-28 (or later) revision a request or notification claims in its envelope, if any. */
export function modernRevisionOf(message: JsonRpcMessage): string | undefined {
  const version = metaOf(message)?.[META.protocolVersion];
  return isModernRevision(version) ? version : undefined;
}

export interface Envelope {
  /** Exactly the reserved keys, as the client sent them. */
  meta: Record<string, unknown>;
  revision: string;
  clientInfo?: { name?: string; version?: string };
}

/** The client's envelope, when the message claims a modern revision. */
export function envelopeOf(message: JsonRpcMessage): Envelope | undefined {
  const meta = metaOf(message);
  const revision = meta?.[META.protocolVersion];
  if (!meta || !isModernRevision(revision)) return undefined;
  const picked: Record<string, unknown> = {};
  for (const key of ENVELOPE_KEYS) if (meta[key] !== undefined) picked[key] = meta[key];
  const info = meta[META.clientInfo] as { name?: unknown; version?: unknown } | undefined;
  const clientInfo =
    info && typeof info === 'object'
      ? { name: typeof info.name === 'string' ? info.name : undefined, version: typeof info.version === 'string' ? info.version : undefined }
      : undefined;
  return { meta: picked, revision, clientInfo };
}

/** Params for a request of Countersign's own, carrying the envelope of the revision in use (if modern). */
export function withEnvelope(params: Record<string, unknown>, envelope: Envelope | undefined): Record<string, unknown> {
  if (!envelope) return params;
  const meta = (params._meta as Record<string, unknown> | undefined) ?? {};
  return { ...params, _meta: { ...envelope.meta, ...meta } };
}

/**
 * A result Countersign makes itself (a denial, a timeout, a refusal), in the shape the request's revision
 * requires: 2026-07-28 results must say `resultType`.
 */
export function shapedResult(result: Record<string, unknown>, request: JsonRpcMessage): Record<string, unknown> {
  if (!modernRevisionOf(request) || typeof result.resultType === 'string') return result;
  return { resultType: 'complete', ...result };
}

/** The server's identity as a 2026-07-28 result carries it (`_meta` serverInfo), if it does. */
export function serverInfoOf(result: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = result._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const info = (meta as Record<string, unknown>)[META.serverInfo];
  return typeof info === 'object' && info !== null && !Array.isArray(info) ? (info as Record<string, unknown>) : undefined;
}

/**
 * What a `server/discover` result says, in the shape of an initialize result (serverInfo, protocolVersion,
 * instructions), so identity and pins are checked the same way for both revisions.
 */
export function identityFromDiscover(result: Record<string, unknown> | undefined, revision: string): Record<string, unknown> {
  const out: Record<string, unknown> = { protocolVersion: revision };
  const info = result ? serverInfoOf(result) : undefined;
  if (info) out.serverInfo = info;
  if (typeof result?.instructions === 'string') out.instructions = result.instructions;
  return out;
}
