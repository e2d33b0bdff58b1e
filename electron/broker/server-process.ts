// Starting and ending a stdio MCP server's process: scrubbed environment, its own process group, the
// tail of its stderr to explain a crash, and an end that takes the whole tree with it.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { scrubbedEnv } from './scrub-env.js';

export interface StdioServerSpec {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the server wrote to stderr, to explain a crash. */
  stderrTail: string;
  /** Set when the command could not be started at all. */
  startError?: string;
}

const STDERR_TAIL_BYTES = 4096;

/** Pipes we create, or a socket whose descriptor the server inherits (relay mode). */
export type ServerStdio = 'pipe' | Socket;

export interface SpawnedServer {
  child: ChildProcess;
  /** Resolves once the process runs; rejects (with `exit.startError` set) when it cannot start. */
  started: Promise<void>;
  /** Resolves with how it ended. */
  exited: Promise<ExitInfo>;
}

/** Spawns the server; its stderr is always piped so we keep its last words. */
export function spawnServer(
  spec: StdioServerSpec,
  stdio: [ServerStdio, ServerStdio],
  onStderr?: (text: string) => void,
): SpawnedServer {
  const child = spawn(spec.command, spec.args ?? [], {
    env: scrubbedEnv(spec.env),
    cwd: spec.cwd,
    stdio: [stdio[0], stdio[1], 'pipe'],
    // Its own process group, so the whole tree can be ended (npx → node → server).
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-STDERR_TAIL_BYTES);
    onStderr?.(text);
  });
  let startError: string | undefined;
  const started = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (err) => {
      startError = err.message;
      reject(new Error(`could not start '${spec.command}': ${err.message}`));
    });
  });
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal, stderrTail: tail }));
    child.once('error', () => resolve({ code: null, signal: null, stderrTail: '', startError }));
  });
  started.catch(() => undefined);
  return { child, started, exited };
}

/** Waits a little for a polite exit, then ends the process group: SIGTERM, then SIGKILL. */
export async function stopServer(child: ChildProcess, exited: Promise<unknown>, graceMs = 500): Promise<void> {
  const graceful = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
  if (!graceful) {
    killTree(child, 'SIGTERM');
    const termed = await Promise.race([exited.then(() => true), delay(2000).then(() => false)]);
    if (!termed) killTree(child, 'SIGKILL');
  } else {
    // The leader left; make sure nothing it started lingers.
    killTree(child, 'SIGTERM');
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Ends the child's whole process group (POSIX) or tree (Windows). */
export function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') {
      spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    } else {
      process.kill(-child.pid, signal);
    }
  } catch {
    // Already gone.
  }
}
