// HTTP gateways in front of a stdio server, for side-by-side benchmarks: the minimal SDK relay (the floor
// for any HTTP path) and the peers supergateway and mcp-proxy, each started from node_modules with `node`.
// A peer that is not installed is skipped with its reason; one that is installed but fails is an error.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FLOOR_FLAGS, NODE, ROOT } from './broker.js';

export type GatewayKind = 'http floor' | 'supergateway' | 'mcp-proxy';

export interface Gateway {
  kind: GatewayKind;
  url: URL;
  pid?: number;
  /** Spawn to accepting connections. */
  startMs: number;
  stop(): Promise<void>;
}

const HTTP_FLOOR = fileURLToPath(new URL('./http-floor.mjs', import.meta.url));
const SUPERGATEWAY = join(ROOT, 'node_modules', 'supergateway', 'dist', 'index.js');
const MCP_PROXY = join(ROOT, 'node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');

/** Why a gateway cannot run here, or undefined when it can. */
export function gatewayMissing(kind: GatewayKind): string | undefined {
  const file = kind === 'http floor' ? HTTP_FLOOR : kind === 'supergateway' ? SUPERGATEWAY : MCP_PROXY;
  return existsSync(file) ? undefined : `${kind} is not installed (${file} is missing; run npm ci)`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function argsFor(kind: GatewayKind, port: number, server: string[]): string[] {
  const quoted = server.map((a) => (/^[\w./@:+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  switch (kind) {
    case 'http floor':
      return [...FLOOR_FLAGS, HTTP_FLOOR, ...server];
    case 'supergateway':
      return [SUPERGATEWAY, '--stdio', quoted, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(port), '--logLevel', 'none'];
    case 'mcp-proxy':
      return [MCP_PROXY, '--port', String(port), '--host', '127.0.0.1', '--server', 'stream', '--', ...server];
  }
}

/** Starts a gateway in front of `server` (a command line) and waits until it accepts connections. */
export async function startGateway(kind: GatewayKind, server: string[]): Promise<Gateway> {
  const port = kind === 'http floor' ? 0 : await freePort();
  const start = performance.now();
  const child: ChildProcess = spawn(NODE, argsFor(kind, port, server), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4096)));
  child.stdout!.on('data', (c: Buffer) => (stdout = (stdout + c.toString()).slice(-4096)));
  const killNow = (): void => void child.kill('SIGKILL');
  process.once('exit', killNow);
  const stop = async (): Promise<void> => {
    process.off('exit', killNow);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const deadline = Date.now() + 20_000;
    let listening = port;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('did not accept connections within 20 s');
      if (kind === 'http floor') {
        const m = /listening (\d+)/.exec(stdout);
        if (m) {
          listening = Number(m[1]);
          break;
        }
      } else if (await accepts(port)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const path = kind === 'http floor' ? '/' : '/mcp';
    return { kind, url: new URL(`http://127.0.0.1:${listening}${path}`), pid: child.pid, startMs: performance.now() - start, stop };
  } catch (err) {
    await stop();
    throw new Error(`${kind}: ${(err as Error).message}${stderr.trim() ? `\n${stderr.trim()}` : ''}`);
  }
}
