// Starts a whole broker for one data dir: lock, settings, the local socket and the HTTP server.
// `countersign serve` and the desktop app both use this.
import { randomBytes } from 'node:crypto';
import { Broker, type BrokerOptions } from './broker.js';
import { ensureDataDir, reportsSocketPath, socketPath } from '../store/data-dir.js';
import { BrokerHttpServer, isLoopbackHost } from '../http/broker-http-server.js';
import { acquireInstanceLock } from '../store/instance-lock.js';
import { explainListenError } from '../explain/port-in-use.js';
import { LocalSocketServer } from '../local/socket-server.js';
import { publishSocketSecret } from '../local/run-secret.js';
import { loadOrCreateToken } from '../store/token-file.js';

export interface HostOptions extends BrokerOptions {
  host?: string;
  port?: number;
  rendererDir: string;
  maxMessageBytes?: number;
  /** Idle HTTP sessions are closed (their servers ended) after this long; default 10 minutes. */
  sessionIdleSeconds?: number;
}

export interface RunningBroker {
  broker: Broker;
  /** The UI's address, with the in-memory API token in the fragment (never sent to a server or logged). */
  uiUrl: string;
  baseUrl: string;
  apiToken: string;
  mcpToken: string;
  socketPath: string;
  stop(): Promise<void>;
}

export async function startBroker(opts: HostOptions): Promise<RunningBroker> {
  ensureDataDir(opts.dataDir);
  const lock = acquireInstanceLock(opts.dataDir);
  const cleanups: Array<() => Promise<void> | void> = [() => lock.release()];
  const stop = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch {
        // Keep tearing down the rest.
      }
    }
  };
  try {
    const broker = new Broker(opts);
    cleanups.push(() => broker.close());
    // In the status too, so the UI shows it, not only the terminal that started it.
    if (opts.host && !isLoopbackHost(opts.host)) broker.warn(beyondLoopbackWarning(opts.host));
    const mcpToken = loadOrCreateToken(opts.dataDir);
    const apiToken = randomBytes(32).toString('base64url');
    const sock = socketPath(opts.dataDir);
    // Written before the socket listens; gone after it closes (cleanups run in reverse).
    const published = publishSocketSecret(opts.dataDir);
    cleanups.push(() => published.remove());
    const local = new LocalSocketServer(broker, {
      path: sock,
      reportsPath: reportsSocketPath(opts.dataDir),
      maxMessageBytes: opts.maxMessageBytes,
      secret: published.secret,
      secretFile: published.file,
    });
    await local.listen();
    cleanups.push(() => local.close());
    const http = new BrokerHttpServer(broker, {
      host: opts.host,
      port: opts.port,
      mcpToken,
      apiToken,
      rendererDir: opts.rendererDir,
      maxBodyBytes: opts.maxMessageBytes,
      idleTimeoutMs: opts.sessionIdleSeconds === undefined ? undefined : opts.sessionIdleSeconds * 1000,
    });
    // A port in use names who holds it, with the fix (explain/port-in-use.ts).
    const { host, port } = await http.listen().catch((err: unknown) => {
      throw explainListenError(err, opts.host ?? '127.0.0.1', opts.port ?? 0) ?? err;
    });
    cleanups.push(() => http.close());
    const shownHost = isLoopbackHost(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    const baseUrl = `http://${shownHost}:${port}`;
    broker.setEndpoints({ httpUrl: baseUrl, mcpUrlTemplate: `${baseUrl}/mcp/<server>` });
    return { broker, uiUrl: `${baseUrl}/#token=${apiToken}`, baseUrl, apiToken, mcpToken, socketPath: sock, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export function beyondLoopbackWarning(host: string): string {
  return `WARNING: binding to ${host}, not loopback. Other machines that can reach this address can try to connect; only the bearer token protects it.`;
}
