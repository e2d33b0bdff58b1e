// 2026-07-28 over Streamable HTTP (SEP-2243): a request names its revision, method and target in headers
// too (MCP-Protocol-Version, Mcp-Method, Mcp-Name), and servers check them against the body. The 1.x
// client transport Countersign uses towards URL servers sets none of them, so they are added here, from
// the request's own envelope; 2025-era requests (no envelope) are left exactly as they were.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { META, isModernRevision } from './era.js';

const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
const SENTINEL = ['=?base64?', '?='] as const;

/** A header value as the spec encodes it: printable ASCII as is, anything else as sentinel-wrapped base64. */
function headerValue(value: string): string {
  const plain = value.length > 0 && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value) && !(value.startsWith(SENTINEL[0]) && value.endsWith(SENTINEL[1]));
  return plain ? value : `${SENTINEL[0]}${Buffer.from(value, 'utf8').toString('base64')}${SENTINEL[1]}`;
}

/** The headers a single 2026-07-28 request body calls for; undefined for anything else. */
export function modernHeaders(body: string): Record<string, string> | undefined {
  if (!body.includes(META.protocolVersion)) return undefined; // the common (2025-era) case costs a substring search
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  const version = (params?._meta as Record<string, unknown> | undefined)?.[META.protocolVersion];
  if (typeof method !== 'string' || !('id' in message) || !isModernRevision(version)) return undefined;
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
  const field = NAME_SOURCE[method];
  const name = field ? params?.[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
  return headers;
}

/** Wraps a fetch so each 2026-07-28 request carries its headers. */
export function eraHeadersFetch(base: FetchLike): FetchLike {
  return (url, init) => {
    const extra = typeof init?.body === 'string' ? modernHeaders(init.body) : undefined;
    if (!extra) return base(url, init);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(extra)) headers.set(k, v);
    return base(url, { ...init, headers });
  };
}
