// Which client an HTTP session belongs to: `/mcp/<server>?client=<id>`, or the X-Countersign-Client
// header. Sessions with the same name share one history; unnamed ones share the unnamed history.
import type { IncomingMessage } from 'node:http';
import { parseClientId } from '../calls/client-key.js';

export const CLIENT_HEADER = 'x-countersign-client';

export function requestClient(req: Pick<IncomingMessage, 'url' | 'headers'>): { ok: true; client?: string } | { ok: false; error: string } {
  let fromQuery: string[];
  try {
    fromQuery = new URL(req.url ?? '/', 'http://placeholder').searchParams.getAll('client');
  } catch {
    return { ok: false, error: 'the request URL cannot be read' };
  }
  const header = req.headers[CLIENT_HEADER];
  const names = [...fromQuery, ...(Array.isArray(header) ? header : header === undefined ? [] : [header])];
  if (names.length === 0) return { ok: true };
  const ids = new Set<string>();
  for (const name of names) {
    const parsed = parseClientId(name);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    ids.add(parsed.id);
  }
  if (ids.size > 1) return { ok: false, error: `the request names more than one client (${[...ids].join(', ')}): give one, in ?client= or ${CLIENT_HEADER}` };
  return { ok: true, client: [...ids][0] };
}
