// Requests a server sends the client (2025-11-25: elicitation, sampling, roots; ping): Countersign relays
// them unchanged, and surfaces each as its own audit entry with the server's name and the full text.
// A URL-mode elicitation's URL is recorded as text: Countersign never opens or fetches it.
import type { NewAuditEntry } from '../../audit/audit-log.js';

type Params = Record<string, unknown> | undefined;

function text(value: unknown, max = 2000): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined;
}

/** What the server asked, as one line a person reads. */
export function describeServerRequest(method: string, params: Params): string {
  switch (method) {
    case 'elicitation/create': {
      const url = text(params?.url);
      if (params?.mode === 'url' || url)
        return `The server asked the client to open a URL (shown here; Countersign does not open it): ${url ?? '(none given)'}${text(params?.message) ? ` — "${text(params?.message)}"` : ''}`;
      return `The server asked the client's user for input: "${text(params?.message) ?? ''}"`;
    }
    case 'sampling/createMessage': {
      const messages = Array.isArray(params?.messages) ? (params.messages as Array<{ content?: unknown }>) : [];
      const last = messages.at(-1)?.content;
      const said = text((Array.isArray(last) ? last[0] : (last as { text?: unknown } | undefined))?.text as unknown);
      return `The server asked the client's model to write a reply (sampling)${said ? `: "${said}"` : ''}`;
    }
    case 'roots/list':
      return 'The server asked the client for its roots (the folders it works in)';
    case 'ping':
      return 'The server pinged the client';
    default:
      return `The server sent the client a request: ${method}`;
  }
}

/** `declined`: why Countersign declined it for the server instead of relaying it (an imitation of its own form). */
export function serverRequestEntry(
  server: string,
  client: string | undefined,
  method: string,
  params: Params,
  calls: string[],
  declined?: string,
): NewAuditEntry {
  if (declined) {
    return {
      ...serverRequestEntry(server, client, method, params, calls),
      decision: 'deny',
      decidedBy: 'policy',
      status: 'denied',
      detail: `${describeServerRequest(method, params)}. Declined for the server, not shown to the client: ${declined}, while approval inside ${client ? `'${client}'` : 'this client'} is on, so the person could take it for Countersign's own question.`,
    };
  }
  return {
    kind: 'server-request',
    time: new Date().toISOString(),
    server,
    // The call it belongs to when only one was running; otherwise the request's own name.
    tool: calls.length === 1 ? calls[0]! : method,
    arguments: { method, params: params ?? {} },
    decision: 'allow',
    decidedBy: 'policy',
    reasons: [],
    durationMs: 0,
    status: 'ok',
    detail: `${describeServerRequest(method, params)}. Relayed to the client${calls.length > 1 ? ` while ${calls.length} calls ran (${calls.join(', ')})` : ''}.`,
    client,
  };
}
