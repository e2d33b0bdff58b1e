// `countersign connect` reaches the broker here: a Unix socket (mode 0600) in the data dir, or a named pipe.
// Reaching it proves nothing (a sandbox may be handed the socket, or a long data dir puts it in the temp
// folder): each hello proves it knows this run's secret (local/), and gets only its role.
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { Broker } from '../core/broker.js';
import type { Change } from '../audit/change-entry.js';
import { badLineResponse, LineTransport } from '../wire/line-transport.js';
import { clientKey, parseClientId } from '../calls/client-key.js';
import { serveLocalApi } from './local-api.js';
import { HANDSHAKE_VERSION, parseHello, parseReportsHello, readFirstLine, type ApiHello, type Attach, type Hello, type HelloReply } from './handshake.js';
import { ControlChannel } from '../relay-mode/control-channel.js';
import { tokensEqual } from '../store/token-file.js';
import type { SocketSecret } from './secret-file.js';
import { challengeApiPeer } from './api-handshake.js';
import { RefusalAudit, type Refusal, type RefusalEntry, type SocketRole } from './refusal-audit.js';
import { refusedCalls } from '../relay/protocol/refused-calls.js';
import type { RelaySession } from '../relay/relay-session.js';

/**
 * A relay-mode report carries the arguments of every call `connect` ran in its last few ms, each up to a
 * client message's 32 MiB: the control channel takes larger lines than a client may send.
 */
const CONTROL_MAX_BYTES = 512 * 1024 * 1024;

export interface LocalSocketOptions {
  path: string;
  /** The socket `connect` sends relay-mode reports on (report-reader.ts); none: reports use the control socket. */
  reportsPath?: string;
  maxMessageBytes?: number;
  /** This run's secret (local/run-secret.ts): every hello but a data or report connection proves it. */
  secret: SocketSecret;
  /** The file it is in, named in refusals. */
  secretFile: string;
}

export class LocalSocketServer {
  private server?: Server;
  private reportsServer?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly refusals: RefusalAudit;

  constructor(
    private readonly broker: Broker,
    private readonly opts: LocalSocketOptions,
  ) {
    this.refusals = new RefusalAudit((entry) => broker.record(refusalChange(entry)));
  }

  async listen(): Promise<void> {
    this.server = await listenAt(
      this.opts.path,
      createServer((socket) => void this.accept(socket)),
    );
    const { reportsPath } = this.opts;
    if (reportsPath !== undefined && process.platform !== 'win32') {
      // A readable high-water mark of 1 byte: Node stops reading a report socket as soon as a chunk waits
      // unread, so `connect`'s writes wake nobody until the broker takes them (report-reader.ts).
      this.reportsServer = await listenAt(
        reportsPath,
        createServer({ highWaterMark: 1 }, (socket) => void this.acceptReports(socket)),
      );
    }
  }

  /** A relay-mode session's report connection: bound to its session by the token, or dropped. */
  private async acceptReports(socket: Socket): Promise<void> {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let why = 'its token names no session waiting for a report connection';
    try {
      const hello = parseReportsHello(await readFirstLine(socket));
      if (this.broker.attachReports(hello.reports, socket)) {
        socket.write(JSON.stringify({ countersign: HANDSHAKE_VERSION, ok: true }) + '\n');
        return;
      }
    } catch (err) {
      why = `it is not a report connection (${short(err)})`;
    }
    // Dropped without a word: nothing but reports is ever read here.
    this.refuse(socket, { role: 'reports', why });
  }

  /** Audited (rate-limited); `say` goes to the peer as an `ok: false` line, else the socket is just dropped. */
  private refuse(socket: Socket, r: Refusal, say?: string): void {
    this.refusals.refused(r);
    if (say === undefined) {
      socket.destroy();
      return;
    }
    socket.write(JSON.stringify({ countersign: HANDSHAKE_VERSION, ok: false, error: say } satisfies HelloReply) + '\n');
    socket.end();
  }

  private unproven(socket: Socket, role: SocketRole, why: string): void {
    this.refuse(
      socket,
      { role, why },
      `Countersign refused this connection: ${why}. Only a command run by the user who runs Countersign can read ${this.opts.secretFile}, which proves it may use the broker.`,
    );
  }

  private async accept(socket: Socket): Promise<void> {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const reply = (r: HelloReply): void => {
      socket.write(JSON.stringify(r) + '\n');
    };
    let hello: Hello | Attach | ApiHello;
    try {
      hello = parseHello(await readFirstLine(socket));
    } catch (err) {
      this.refuse(
        socket,
        { role: 'handshake', why: `no hello (${short(err)})` },
        `Countersign could not read the connect handshake: ${(err as Error).message}`,
      );
      return;
    }
    if ('api' in hello) {
      // The whole API: only for a peer that proves it knows this run's API secret, never sent on the socket.
      const proven = await challengeApiPeer(socket, this.opts.secret.api, hello.nonce);
      if (!proven.ok) {
        this.unproven(socket, 'api', proven.why);
        return;
      }
      reply({ countersign: HANDSHAKE_VERSION, ok: true, mode: 'api' });
      serveLocalApi(socket, this.broker.apiFor('cli'));
      return;
    }
    if ('attach' in hello) {
      // A relay-mode session's data connection: handed to its server as stdio, or dropped (its bytes are the server's).
      if (!this.broker.attachRemote(hello.attach, socket))
        this.refuse(socket, { role: 'attach', why: 'its attach token names no session waiting for its server' });
      return;
    }
    // A session of one server, and nothing else: its messages are MCP (pipe) or the relay-mode control
    // protocol, neither of which reaches the API.
    if (hello.secret === undefined || !tokensEqual(hello.secret, this.opts.secret.connect)) {
      this.unproven(
        socket,
        'connect',
        hello.secret === undefined ? 'it did not present the socket secret of this broker run' : "the socket secret it presented is not this broker run's",
      );
      return;
    }
    const { server } = hello;
    if (hello.client !== undefined) {
      const named = parseClientId(hello.client);
      if (!named.ok) {
        reply({ countersign: HANDSHAKE_VERSION, ok: false, error: `Countersign refused --client: ${named.error}.` });
        socket.end();
        return;
      }
    }
    // Every session of one agent shares one history, whichever server and process it came through.
    const key = clientKey(hello);
    let session: RelaySession | undefined;
    // `client`: the pipe's lines are the client's MCP messages (the control channel's are connect's own).
    const transport = (maxMessageBytes: number | undefined, client: boolean): LineTransport => {
      const lines: LineTransport = new LineTransport({
        input: socket,
        output: socket,
        maxMessageBytes,
        client,
        onBadLine: (bad) => {
          // Always answered, with `"id": null` when no id could be read.
          void lines.send(badLineResponse(bad)).catch(() => undefined);
          // A client's call among it (or a message that may have been one) goes to the log.
          if (client) this.broker.logRefused(server, session?.clientInfo?.name, refusedCalls(bad));
        },
        onCloseStreams: () => socket.end(),
      });
      return lines;
    };
    try {
      if (hello.relay) {
        const remote = await this.broker.openBrokerHalf(server, new ControlChannel(transport(CONTROL_MAX_BYTES, false)), key, hello.fills);
        if (remote) {
          const { reportsPath } = this.opts;
          const reports = this.reportsServer && reportsPath !== undefined ? { path: reportsPath, token: remote.reportToken } : undefined;
          reply({
            countersign: HANDSHAKE_VERSION,
            ok: true,
            mode: 'relay',
            attach: remote.attachToken,
            upstreamTimeoutMs: remote.upstreamTimeoutMs,
            ...(reports ? { reports } : {}),
          });
          await remote.start();
          socket.resume();
          return;
        }
      }
      session = await this.broker.openSession(server, transport(this.opts.maxMessageBytes, true), key, hello.fills);
    } catch (err) {
      // Refusals (unknown server, command awaiting consent, blocked by policy) explain themselves.
      const message = (err as Error).message;
      reply({ countersign: HANDSHAKE_VERSION, ok: false, error: message });
      socket.end();
      return;
    }
    reply({ countersign: HANDSHAKE_VERSION, ok: true, mode: 'pipe' });
    socket.resume();
  }

  async close(): Promise<void> {
    this.refusals.flush();
    for (const s of this.sockets) s.destroy();
    await closeAt(this.opts.path, this.server);
    if (this.reportsServer && this.opts.reportsPath !== undefined) await closeAt(this.opts.reportsPath, this.reportsServer);
  }
}

/** The audit entry of refused connections (kind 'access'): the first of a spell, or how many since. */
function refusalChange(e: RefusalEntry): Change {
  const what = e.first
    ? `refused a connection on the local socket (${e.latest.role}): ${e.latest.why}`
    : `refused ${e.count} more connection${e.count === 1 ? '' : 's'} on the local socket (latest: ${e.latest.role}: ${e.latest.why})`;
  return { kind: 'access', actor: 'countersign', server: '*', tool: e.latest.role, what, details: { count: e.count, reasons: e.reasons }, decision: 'deny' };
}

/** A reason from a parse error, kept short: the peer chose its bytes. */
function short(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

async function listenAt(path: string, server: Server): Promise<Server> {
  // We hold the data dir's instance lock, so a socket file left here is from a broker that died.
  if (process.platform !== 'win32' && existsSync(path)) unlinkSync(path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  return server;
}

async function closeAt(path: string, server: Server | undefined): Promise<void> {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (process.platform !== 'win32' && existsSync(path)) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
  }
}
