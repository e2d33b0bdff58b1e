// The /mcp/<server> Streamable HTTP endpoint: sessions, POST/GET/DELETE, envelope checks. Our own instead of
// the SDK's server transport because the broker must relay messages unchanged (no schema re-validation,
// any MCP-Protocol-Version, bodies far above 4 MB).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkEnvelope, ErrorCode, errorResponse, isRequest, isResponse, type JsonRpcId, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { MessageTransport } from '../wire/transport.js';
import { modernRevisionOf } from '../relay/protocol/era.js';
import { requestClient } from './client-name.js';
import { HttpSessionTransport } from './mcp-http-session.js';
import { SessionReaper } from './session-reaper.js';
import { StatelessHttpTransport } from './stateless-transport.js';
import { DEFAULT_MAX_BODY_BYTES, readJsonBody, sendRejection } from './request-guard.js';
import { BATCH_REFUSAL } from '../wire/jsonrpc-guard.js';
import { refusedCalls, type RefusedCall, type RefusedMessage } from '../relay/protocol/refused-calls.js';

export interface McpEndpointOptions {
  maxBodyBytes?: number;
  /** SSE comment interval for open streams; 0 disables. Default 15 s. */
  keepAliveMs?: number;
  /** Messages held per session while no stream is open to carry them. Default 1000. */
  maxQueuedMessages?: number;
  /**
   * Called when a client sends initialize without a session id. Return an error message to refuse (e.g.
   * unknown server name): the client then gets a JSON-RPC error with the initialize request's id, HTTP 404.
   * The broker attaches its relay to `transport` (onmessage etc.) and calls transport.start().
   * `client` is the client's name from the request (client-name.ts), when it gave one.
   */
  onSession(serverName: string, transport: MessageTransport, client: string | undefined): string | undefined | Promise<string | undefined>;
  /** Sessions (and stateless pools) with nothing in flight for this long are closed, their servers ended. */
  idleTimeoutMs?: number;
  /** Calls in a POST refused before any session saw them (protocol/refused-calls.ts): for the log. */
  onRefused?(serverName: string, calls: RefusedCall[], client: string | undefined): void;
}

/** How long an HTTP session may sit unused before Countersign closes it (and ends its server). */
export const DEFAULT_IDLE_TIMEOUT_MS = 10 * 60_000;

const SESSION_HEADER = 'mcp-session-id';

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function acceptsSse(req: IncomingMessage): boolean {
  return /\btext\/event-stream\b/i.test(header(req, 'accept') ?? '');
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, code: number, message: string, id: JsonRpcId | null = null): void {
  sendJson(res, status, errorResponse(id, code, message));
}

export class McpHttpEndpoint {
  private readonly sessions = new Map<string, HttpSessionTransport>();
  /** 2026-07-28 stateless requests: one relayed connection per server and client. */
  private readonly pools = new Map<string, Promise<StatelessHttpTransport | string>>();
  private readonly maxBodyBytes: number;
  private readonly reaper: SessionReaper;

  constructor(private readonly opts: McpEndpointOptions) {
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.reaper = new SessionReaper(opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => this.idleCandidates());
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Open sessions (2025-11-25) and stateless pools (2026-07-28), for the status. */
  openSessions(): { sessions: number; stateless: number; idleTimeoutSeconds: number } {
    return { sessions: this.sessions.size, stateless: this.pools.size, idleTimeoutSeconds: Math.round(this.reaper.idleMs / 1000) };
  }

  private async idleCandidates(): Promise<Array<{ busy: boolean; lastActivity: number; close(): Promise<void> }>> {
    const pools = await Promise.all([...this.pools.values()]);
    return [...this.sessions.values(), ...pools.filter((p): p is StatelessHttpTransport => typeof p !== 'string')];
  }

  /** Host, Origin and token checks are the caller's job; this serves one request for `serverName`. */
  async handle(req: IncomingMessage, res: ServerResponse, serverName: string): Promise<void> {
    try {
      switch (req.method) {
        case 'POST':
          return await this.handlePost(req, res, serverName);
        case 'GET':
          return this.handleGet(req, res, serverName);
        case 'DELETE':
          return await this.handleDelete(req, res, serverName);
        default:
          res.setHeader('Allow', 'GET, POST, DELETE');
          return sendError(res, 405, -32000, `Method Not Allowed: ${req.method ?? '?'}`);
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      sendError(res, 500, ErrorCode.InternalError, `Internal error: ${detail}`);
    }
  }

  async closeAll(): Promise<void> {
    this.reaper.stop();
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
    this.sessions.clear();
    const pools = await Promise.all([...this.pools.values()]);
    await Promise.all(pools.map((p) => (typeof p === 'string' ? undefined : p.close())));
    this.pools.clear();
  }

  /** The session named by the request header, or an error already sent (400 missing, 404 unknown). */
  private sessionFor(req: IncomingMessage, res: ServerResponse, serverName: string): HttpSessionTransport | undefined {
    const id = header(req, SESSION_HEADER);
    if (!id) {
      sendError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return undefined;
    }
    const session = this.sessions.get(id);
    // A session opened for another server is "not found" here, so ids never cross servers.
    if (!session || session.isClosed || session.serverName !== serverName) {
      sendError(res, 404, -32001, 'Session not found: initialize a new session');
      return undefined;
    }
    return session;
  }

  private async handlePost(req: IncomingMessage, res: ServerResponse, serverName: string): Promise<void> {
    const hasSessionHeader = header(req, SESSION_HEADER) !== undefined;
    // Check the session before reading a possibly large body for nothing.
    const existing = hasSessionHeader ? this.sessionFor(req, res, serverName) : undefined;
    if (hasSessionHeader && !existing) return;

    const body = await readJsonBody(req, this.maxBodyBytes, true);
    // From here the body was read: a call it held (or may have held) is logged when it is refused.
    const logRefused = (refused: RefusedMessage): void => {
      const named = requestClient(req);
      this.opts.onRefused?.(serverName, refusedCalls(refused), named.ok ? named.client : undefined);
    };
    if (!body.ok) {
      if (body.refused) logRefused(body.refused);
      // Past the cap the rest of the body is unread: close the connection rather than drain it.
      return sendRejection(res, body, body.status === 413 ? 'drain' : 'keep');
    }
    const read = { value: body.value };
    const refuse = (status: number, code: number, message: string, reason: string, id: JsonRpcId | null = null): void => {
      logRefused({ reason, read, head: '' });
      sendError(res, status, code, message, id);
    };
    // One message per POST, as on stdio: batching left MCP in 2025-06-18 (a batched call would otherwise
    // reach the server in a shape no single-message check looked at).
    if (Array.isArray(body.value)) return refuse(400, ErrorCode.InvalidRequest, `Invalid Request: ${BATCH_REFUSAL}`, BATCH_REFUSAL);
    const checked = checkEnvelope(body.value);
    if (!checked.ok) return refuse(400, ErrorCode.InvalidRequest, `Invalid Request: ${checked.reason}`, checked.reason);
    const message = checked.message;
    const id = isRequest(message) ? message.id : null;
    const sse = acceptsSse(req);

    if (existing) {
      // The session may have closed while the body was being read.
      if (existing.isClosed) return refuse(404, -32001, 'Session not found: initialize a new session', 'its session had ended');
      existing.handlePost(res, message, { sse, headers: { 'Mcp-Session-Id': existing.sessionId }, body: body.bytes });
      return;
    }

    // 2026-07-28: no session at all. The message claims the revision in its own envelope.
    if (!isResponse(message) && modernRevisionOf(message) !== undefined) {
      const named = requestClient(req);
      if (!named.ok) return refuse(400, ErrorCode.InvalidRequest, `Bad Request: ${named.error}`, named.error, id);
      const pool = await this.poolFor(serverName, named.client, message);
      if (typeof pool === 'string') return refuse(404, -32000, pool, pool, id);
      pool.handlePost(res, message, { sse });
      this.reaper.start();
      return;
    }

    if (!isRequest(message) || message.method !== 'initialize') {
      return refuse(400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)', 'it came without a session (no Mcp-Session-Id)');
    }
    const named = requestClient(req);
    if (!named.ok) return sendError(res, 400, ErrorCode.InvalidRequest, `Bad Request: ${named.error}`, message.id);
    await this.openSession(res, serverName, message, sse, named.client);
  }

  private async openSession(
    res: ServerResponse,
    serverName: string,
    init: JsonRpcMessage & { id: JsonRpcId },
    sse: boolean,
    client: string | undefined,
  ): Promise<void> {
    const session = new HttpSessionTransport({
      sessionId: newSessionId(),
      serverName,
      keepAliveMs: this.opts.keepAliveMs,
      maxQueuedMessages: this.opts.maxQueuedMessages,
      onEnded: (ended) => {
        if (this.sessions.get(ended.sessionId) === ended) this.sessions.delete(ended.sessionId);
      },
      onRefusedCall: (call) => this.opts.onRefused?.(serverName, [call], client),
    });
    let refusal: string | undefined;
    try {
      refusal = await this.opts.onSession(serverName, session, client);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return sendError(res, 500, ErrorCode.InternalError, `Internal error: could not open a session: ${detail}`, init.id);
    }
    if (refusal !== undefined) return sendError(res, 404, -32000, refusal, init.id);
    this.sessions.set(session.sessionId, session);
    this.reaper.start();
    session.handlePost(res, init, { sse, headers: { 'Mcp-Session-Id': session.sessionId } });
  }

  /** The stateless pool of this server and client, opened (server started) on first use. */
  private poolFor(serverName: string, client: string | undefined, message: JsonRpcMessage): Promise<StatelessHttpTransport | string> {
    // The name a client gives in its envelope keeps pools apart too (never joins them).
    const named = (message as { params?: { _meta?: Record<string, { name?: unknown }> } }).params?._meta?.['io.modelcontextprotocol/clientInfo']?.name;
    const declared = typeof named === 'string' ? named : undefined;
    const key = JSON.stringify([serverName, client ?? null, declared ?? null]);
    const existing = this.pools.get(key);
    if (existing) return existing.then((p) => (typeof p !== 'string' && p.isClosed ? this.openPool(key, serverName, client) : p));
    return this.openPool(key, serverName, client);
  }

  private openPool(key: string, serverName: string, client: string | undefined): Promise<StatelessHttpTransport | string> {
    const transport = new StatelessHttpTransport({
      serverName,
      keepAliveMs: this.opts.keepAliveMs,
      onEnded: () => {
        void this.pools.get(key)?.then((p) => {
          if (p === transport) this.pools.delete(key);
        });
      },
    });
    const opened = (async (): Promise<StatelessHttpTransport | string> => {
      try {
        const refusal = await this.opts.onSession(serverName, transport, client);
        return refusal ?? transport;
      } catch (error) {
        return `Internal error: could not open a connection: ${error instanceof Error ? error.message : String(error)}`;
      }
    })();
    this.pools.set(key, opened);
    // A refusal is not kept: the next request asks again (the person may have approved meanwhile).
    void opened.then((p) => {
      if (typeof p === 'string' && this.pools.get(key) === opened) this.pools.delete(key);
    });
    return opened;
  }

  private handleGet(req: IncomingMessage, res: ServerResponse, serverName: string): void {
    if (!acceptsSse(req)) {
      return sendError(res, 406, -32000, 'Not Acceptable: GET needs Accept: text/event-stream');
    }
    const session = this.sessionFor(req, res, serverName);
    if (!session) return;
    if (!session.openStandalone(res, { 'Mcp-Session-Id': session.sessionId })) {
      sendError(res, 409, -32000, 'Conflict: this session already has an open GET stream');
    }
  }

  private async handleDelete(req: IncomingMessage, res: ServerResponse, serverName: string): Promise<void> {
    const session = this.sessionFor(req, res, serverName);
    if (!session) return;
    await session.close();
    res.writeHead(200, { 'Content-Length': '0' });
    res.end();
  }
}

/** 192 random bits (a UUIDv4 has 122): a session id is all that names a session on the wire. */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}
