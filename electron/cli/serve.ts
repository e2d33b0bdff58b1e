// `countersign serve`: the broker, headless, with the UI served to any browser on this machine.
import { spawn } from 'node:child_process';
import { startBroker } from '../broker/core/broker-host.js';
import { InstanceLockError } from '../broker/store/instance-lock.js';
import { escapeControl } from '../../shared/escape.js';

export interface ServeOptions {
  dataDir: string;
  /** The approval UI's files (dist/renderer), found by the entry that runs the CLI. */
  rendererDir: string;
  host?: string;
  port?: number;
  open: boolean;
  approvalTimeoutSeconds?: number;
  progressIntervalMs?: number;
  /** Idle HTTP sessions are closed (their servers ended) after this long. */
  sessionIdleSeconds?: number;
}

export async function runServe(opts: ServeOptions): Promise<number> {
  let running;
  try {
    running = await startBroker({
      dataDir: opts.dataDir,
      host: opts.host,
      port: opts.port,
      rendererDir: opts.rendererDir,
      approvalTimeoutSeconds: opts.approvalTimeoutSeconds,
      progressIntervalMs: opts.progressIntervalMs,
      sessionIdleSeconds: opts.sessionIdleSeconds,
      // The Clients view shows this folder's project configs (.vscode/mcp.json…) unless told another.
      clientsProject: process.cwd(),
      onWarning: (text) => process.stderr.write(`countersign: ${escapeControl(text)}\n`),
      onServerStderr: (server, text) => process.stderr.write(`[${escapeControl(server)}] ${escapeControl(text, { keepNewlines: true })}`),
    });
  } catch (err) {
    if (err instanceof InstanceLockError) {
      process.stderr.write(`countersign: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // Before the address is printed: a stop that comes as soon as it is seen still closes in order
  // (the socket and its secret removed, the last log entries written).
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      void running.stop().then(() => resolve(0));
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    process.on('SIGHUP', stop);
  });
  process.stdout.write(`Countersign UI: ${running.uiUrl}\n`);
  const { connectCommand } = await running.broker.apiFor('cli').getStatus();
  process.stderr.write(
    `countersign: broker ready. Data: ${opts.dataDir}\n` +
      `  stdio clients: ${connectCommand} [--client <name>]\n` +
      `  HTTP clients:  ${running.baseUrl}/mcp/<server>?client=<name> with the bearer token in ${opts.dataDir}/mcp-token\n`,
  );
  if (opts.open) openInBrowser(running.uiUrl);
  return stopped;
}

function openInBrowser(url: string): void {
  // Only our own loopback UI address is ever handed to the OS opener.
  if (!/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+$/.test(url)) return;
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => process.stderr.write(`countersign: could not open a browser; open the UI address above yourself.\n`));
    child.unref();
  } catch {
    // No opener on this machine: the address is printed above.
  }
}
