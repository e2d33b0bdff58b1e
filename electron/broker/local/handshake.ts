// The first line on the local socket: which server the `connect` process wants, and the broker's answer.
// After it, the socket carries plain newline-delimited JSON-RPC.
import type { Socket } from 'node:net';
import type { AgentProcess } from '../calls/client-key.js';
import { parseFillValues, type FillValues } from '../trust/launch-fill.js';

export const HANDSHAKE_VERSION = 1;
// Room for the placeholders' values (trust/launch-fill.ts: 32 of at most 4096 characters, each up to 6 bytes escaped).
const MAX_HELLO_BYTES = 1024 * 1024;
/** A challenge nonce: 32 random bytes, base64url. */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface Hello {
  countersign: number;
  server: string;
  /** The client's name (`connect --client <id>`): sessions of one client share local-read history. */
  client?: string;
  /** Without a name: the agent process `connect` found past its launchers (see client-key.ts). */
  agent?: AgentProcess;
  /** `connect` can relay itself (see relay-mode/connect/connect-session.ts); an older broker ignores this. */
  relay?: boolean;
  /** This broker run's connect secret (local/secret-file.ts): without it, no session. */
  secret?: string;
  /** The client's values of the placeholders the server's launch declares (trust/launch-fill.ts). */
  fills?: FillValues;
}

/** The CLI's connection: the typed API, as JSON-RPC (see local-api.ts), once it answered the challenge. */
export interface ApiHello {
  countersign: number;
  api: true;
  /** The CLI's nonce for the challenge (local/api-handshake.ts); an older CLI sends none and is refused. */
  nonce?: string;
}

/** The second connection of a relay-mode session: it becomes the server's stdin and stdout. */
export interface Attach {
  countersign: number;
  attach: string;
}

/** The report connection of a relay-mode session (on the report socket, see relay-mode/broker/report-reader.ts). */
export interface ReportsHello {
  countersign: number;
  reports: string;
}

export type HelloReply =
  | { countersign: number; ok: true; mode?: 'pipe' | 'api' }
  /** To an `api` hello: prove you know the API secret (local/api-handshake.ts). */
  | { countersign: number; ok: true; mode: 'challenge'; nonce: string; proof: string }
  | {
      countersign: number;
      ok: true;
      mode: 'relay';
      attach: string;
      upstreamTimeoutMs: number;
      /** Where and how `connect` opens its report connection; an older broker leaves it out (reports then go on the control socket). */
      reports?: { path: string; token: string };
    }
  | { countersign: number; ok: false; error: string };

/** Reads one line from the socket; any bytes after it are pushed back for the next reader. */
export function readFirstLine(socket: Socket, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const cleanup = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
    };
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const nl = buf.indexOf(10);
      if (nl === -1) {
        if (buf.length > MAX_HELLO_BYTES) {
          cleanup();
          reject(new Error('handshake line too long'));
        }
        return;
      }
      cleanup();
      socket.pause();
      const rest = buf.subarray(nl + 1);
      if (rest.length) socket.unshift(rest);
      resolve(buf.subarray(0, nl).toString('utf8'));
    };
    const onEnd = (): void => {
      cleanup();
      reject(new Error('connection closed during handshake'));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error('handshake timed out'));
    }, timeoutMs);
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onEnd);
    // A socket a reader before paused (the first line of a multi-line handshake) flows again.
    socket.resume();
  });
}

/** The first line on the report socket: nothing else is accepted there. */
export function parseReportsHello(line: string): ReportsHello {
  const v: unknown = JSON.parse(line);
  const r = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  if (r.countersign !== HANDSHAKE_VERSION) throw new Error(`unsupported handshake version ${String(r.countersign)}`);
  if (typeof r.reports !== 'string' || r.reports.length === 0 || r.reports.length > 200) throw new Error('handshake has a bad reports token');
  return { countersign: HANDSHAKE_VERSION, reports: r.reports };
}

export function parseHello(line: string): Hello | Attach | ApiHello {
  const value: unknown = JSON.parse(line);
  if (!value || typeof value !== 'object') throw new Error('handshake is not an object');
  const v = value as Record<string, unknown>;
  if (v.countersign !== HANDSHAKE_VERSION) throw new Error(`unsupported handshake version ${String(v.countersign)}`);
  if (v.api === true) {
    if (v.nonce !== undefined && (typeof v.nonce !== 'string' || !NONCE_PATTERN.test(v.nonce))) throw new Error('handshake has a bad nonce');
    return { countersign: HANDSHAKE_VERSION, api: true, ...(v.nonce !== undefined ? { nonce: v.nonce } : {}) };
  }
  if (v.attach !== undefined) {
    if (typeof v.attach !== 'string' || v.attach.length === 0 || v.attach.length > 200) throw new Error('handshake has a bad attach token');
    return { countersign: HANDSHAKE_VERSION, attach: v.attach };
  }
  if (typeof v.server !== 'string' || v.server.length === 0 || v.server.length > 200) throw new Error('handshake has no server name');
  if (v.secret !== undefined && (typeof v.secret !== 'string' || v.secret.length > 200)) throw new Error('handshake has a bad secret');
  const fills = parseFillValues(v.fills);
  return {
    ...(fills && { fills }),
    countersign: HANDSHAKE_VERSION,
    server: v.server,
    client: optionalClient(v.client),
    agent: optionalAgent(v.agent),
    relay: v.relay === true,
    ...(v.secret !== undefined ? { secret: v.secret } : {}),
  };
}

function optionalClient(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 200) throw new Error('handshake has a bad client name');
  return value;
}

function optionalAgent(value: unknown): AgentProcess | undefined {
  if (value === undefined) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- it misreads this cast from `unknown` (tsc needs it)
  const a = value as Partial<AgentProcess> | null;
  if (!a || typeof a !== 'object' || !Number.isInteger(a.pid) || (a.pid as number) <= 1 || typeof a.start !== 'string' || a.start.length > 64) {
    throw new Error('handshake has a bad agent process');
  }
  return { pid: a.pid as number, start: a.start };
}
