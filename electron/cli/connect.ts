// `countersign connect <server>`: the stdio command an MCP client runs instead of the real server.
// After a one-line handshake it either relays the session itself to a server the broker started (relay
// mode: stdio servers), or is a plain byte pipe to the broker, which relays (remote servers).
import { lstatSync } from 'node:fs';
import type { Socket } from 'node:net';
import { openSocket } from '../broker/relay-mode/connect/attached-upstream.js';
import { runRelayMode } from '../broker/relay-mode/connect/connect-session.js';
import { socketPath } from '../broker/store/data-dir.js';
import { HANDSHAKE_VERSION, readFirstLine, type HelloReply } from '../broker/local/handshake.js';
import { ErrorCode, errorResponse } from '../../shared/jsonrpc.js';
import { escapeControl } from '../../shared/escape.js';
import { parseClientId } from '../broker/calls/client-key.js';
import { UsageError } from './args.js';
import { currentAgent } from './agent-process.js';
import { readSocketSecret, unreadableSecret } from '../broker/local/secret-file.js';
import { LineFramer } from '../broker/wire/line-framer.js';
import { fillsFromEnv, type FillValues } from '../broker/trust/launch-fill.js';

export interface ConnectOptions {
  /** The client's name (`--client`), which `wrap` always writes; without it the agent is looked up. */
  client?: string;
}

export async function runConnect(server: string, dataDir: string, opts: ConnectOptions = {}): Promise<number> {
  let client: string | undefined;
  if (opts.client !== undefined) {
    const parsed = parseClientId(opts.client);
    if (!parsed.ok) throw new UsageError(`--client: ${parsed.error}`);
    client = parsed.id;
  }
  const path = socketPath(dataDir);
  let socket: Socket;
  try {
    socket = await openSocket(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' || code === 'ECONNREFUSED'
        ? `Countersign is not running for ${dataDir}. Open the Countersign app, or start it with \`${await serveCommand(dataDir)}\`, then restart this MCP server in your client.`
        : `Countersign could not reach its broker at ${path}: ${(err as Error).message}`;
    return refuse(why);
  }
  // This run's connect secret opens a session (a small file read; no round trip, no node:crypto). Without
  // it the broker refuses, and we say why we had none.
  const secret = readSocketSecret(dataDir);
  if (secret.ok && !ownedByUs(path)) {
    socket.destroy();
    return refuse(`Countersign did not send its socket secret to ${path}: that socket belongs to another user.`);
  }
  let fills: FillValues | undefined;
  try {
    fills = fillsFromEnv(process.env);
  } catch (err) {
    socket.destroy();
    return refuse(`Countersign could not read the values the client filled in: ${(err as Error).message}`);
  }
  const hello = {
    countersign: HANDSHAKE_VERSION,
    server,
    relay: true,
    ...(client ? { client } : { agent: currentAgent() }),
    ...(secret.ok ? { secret: secret.secret.connect } : {}),
    ...(fills && { fills }),
  };
  socket.write(JSON.stringify(hello) + '\n');
  let reply: HelloReply;
  try {
    reply = JSON.parse(await readFirstLine(socket)) as HelloReply;
  } catch (err) {
    socket.destroy();
    return refuse(`Countersign's broker did not answer the handshake: ${(err as Error).message}`);
  }
  if (!reply.ok) {
    socket.destroy();
    return refuse(secret.ok ? reply.error : `${reply.error} (${unreadableSecret(secret)})`);
  }
  if (reply.mode !== 'relay') return pipe(socket);
  const stop = new AbortController();
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(sig, () => {
      stop.abort();
      // The orderly end takes milliseconds; never outlive the signal by much.
      setTimeout(() => process.exit(0), 2000).unref();
    });
  }
  await runRelayMode({
    signal: stop.signal,
    server,
    socketPath: path,
    control: socket,
    attachToken: reply.attach,
    reports: reply.reports,
    upstreamTimeoutMs: reply.upstreamTimeoutMs,
    input: process.stdin,
    output: process.stdout,
    onWarning: (text) => process.stderr.write(`countersign: ${escapeControl(text)}\n`),
  });
  // The session is over: stop reading stdin so the process can exit.
  process.stdin.destroy();
  return 0;
}

/** How to start the broker for this data dir, as an absolute command (never a registry name). */
async function serveCommand(dataDir: string): Promise<string> {
  try {
    // Only on this error path: cli-command loads node:child_process.
    const { countersignCommand, formatCommand } = await import('../broker/core/cli-command.js');
    const cmd = countersignCommand();
    return formatCommand({ command: cmd.command, args: [...cmd.args, 'serve', '--data-dir', dataDir] });
  } catch {
    return `countersign serve --data-dir ${dataDir}`;
  }
}

/** A Unix socket must be this user's before the secret goes to it (a long data dir puts it in the shared temp folder). */
function ownedByUs(path: string): boolean {
  if (process.platform === 'win32' || process.getuid === undefined) return true; // a named pipe: its ACL (docs/security.md)
  try {
    return lstatSync(path).uid === process.getuid();
  } catch {
    return false;
  }
}

function pipe(socket: Socket): Promise<number> {
  return new Promise((resolve) => {
    socket.resume();
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
    // Our stdin ending means the client is gone; the broker then closes the session upstream.
    process.stdin.on('end', () => socket.end());
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(0));
  });
}

/**
 * Answers the client's first request with a JSON-RPC error that says what is wrong, then exits
 * non-zero. We wait for that request so the error carries its id and the client shows it.
 */
function refuse(message: string): Promise<number> {
  process.stderr.write(`countersign: ${message}\n`);
  return new Promise((resolve) => {
    let answered = false;
    const done = (): void => {
      process.stdin.pause();
      resolve(1);
    };
    const timer = setTimeout(done, 10_000);
    const answer = (line?: Buffer): void => {
      if (answered) return;
      answered = true;
      let id: string | number | null = null;
      try {
        const msg = JSON.parse(line?.toString('utf8') ?? '') as { id?: unknown };
        if (typeof msg.id === 'string' || typeof msg.id === 'number') id = msg.id;
      } catch {
        // Not JSON (or too long to wait for): answer with a null id.
      }
      clearTimeout(timer);
      process.stdout.write(JSON.stringify(errorResponse(id, ErrorCode.ServerUnavailable, message)) + '\n', done);
    };
    const framer = new LineFramer({ maxLineBytes: FIRST_LINE_BYTES, onLine: answer, onOverflow: () => answer() });
    process.stdin.on('data', (chunk: Buffer) => framer.push(chunk));
    process.stdin.on('end', () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** How much of the first request `refuse` waits for before it answers without its id. */
const FIRST_LINE_BYTES = 1_000_000;
