// Which agent a session belongs to. Sessions with the same key share one history, so a local read
// through one server makes an open-world call through another ask (shared/decide.ts). The key comes
// from the name the client's entry gives (`connect --client <id>`, `?client=<id>` on HTTP), else from
// the agent process `connect` found past its launchers; else every such session shares one history,
// so not knowing the agent never weakens the guard.

/** An agent process: its pid, and its start time so a reused pid is not taken for the same agent. */
export interface AgentProcess {
  pid: number;
  start: string;
}

export interface ClientIdentity {
  client?: string;
  agent?: AgentProcess;
}

/** The history every session without a name or a known agent shares. */
export const UNNAMED_CLIENT = 'unnamed';

const CLIENT_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The client id as it is keyed (ids are case-insensitive), or an error that says what is allowed. */
export function parseClientId(raw: string): { ok: true; id: string } | { ok: false; error: string } {
  const id = raw.trim().toLowerCase();
  if (CLIENT_ID.test(id)) return { ok: true, id };
  return {
    ok: false,
    error: `the client id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (got ${JSON.stringify(raw.slice(0, 80))})`,
  };
}

export function clientKey(who: ClientIdentity): string {
  if (who.client !== undefined) {
    const parsed = parseClientId(who.client);
    // A bad name is refused before a session opens; should one get here, it shares the unnamed history.
    return parsed.ok ? `client:${parsed.id}` : UNNAMED_CLIENT;
  }
  if (who.agent) return `agent:${who.agent.pid}@${who.agent.start}`;
  return UNNAMED_CLIENT;
}
