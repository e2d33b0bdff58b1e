// Starting and ending a stdio MCP server's process: scrubbed environment, its limits (sandbox), its
// own process group, the tail of its stderr to explain a crash, and an end that takes the whole tree
// with it: a PID namespace where bubblewrap works, a descendant sweep where it does not.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { NO_LIMITS, unenforcedLimits, type LimitsEnforcement, type LimitsProfile, type SandboxSupport } from '../../../shared/limits.js';
import { sandboxSupport } from './sandbox/detect.js';
import type { HideSpec } from './sandbox/hidden-paths.js';
import { LimitsUnenforceable, planEnforcement, planLaunch, type LaunchPlan } from './sandbox/launch-plan.js';
import { prepareForLimits, type PackagePreparer } from './sandbox/package-prep.js';
import { endTree, treeOf } from './sandbox/tree-sweep.js';

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

/** The limits a server runs under, and what this machine can enforce (probed once when omitted). */
export interface SandboxOptions {
  limits?: LimitsProfile;
  support?: SandboxSupport | Promise<SandboxSupport>;
  /** Installs an npx package before the sandbox, so a limited server runs it offline. */
  preparer?: PackagePreparer;
  /** Countersign's own files, masked inside the sandbox whatever the limits say (asked at each start). */
  hide?: () => HideSpec;
  /** The person let this server run without the limits this machine cannot enforce (else it is refused). */
  allowUnenforced?: boolean;
  /** The server's name, for a refusal's words. */
  server?: string;
}

export interface SpawnedServer {
  /** Undefined when it was refused before anything ran (missing command, unusable limits). */
  child?: ChildProcess;
  /** Resolves once the process runs; rejects (with `exit.startError` set) when it cannot start. */
  started: Promise<void>;
  /** Resolves with how it ended. */
  exited: Promise<ExitInfo>;
  /** Which of its limits are enforced, and by what. */
  enforcement?: LimitsEnforcement;
  plan?: LaunchPlan;
}

function refused(command: string, err: Error): SpawnedServer {
  const started = Promise.reject(new Error(`could not start '${command}': ${err.message}`));
  started.catch(() => undefined);
  return { started, exited: Promise.resolve({ code: null, signal: null, stderrTail: '', startError: err.message }) };
}

/**
 * Spawns the server under its limits; its stderr is always piped so we keep its last words. Never
 * rejects: a server that cannot start says why through `started` and `exited`.
 */
export async function spawnServer(
  spec: StdioServerSpec,
  stdio: [ServerStdio, ServerStdio],
  onStderr?: (text: string) => void,
  sandbox: SandboxOptions = {},
): Promise<SpawnedServer> {
  try {
    const support = await (sandbox.support ?? sandboxSupport());
    const limits = sandbox.limits ?? NO_LIMITS;
    // Fail closed before anything is prepared: limits that cannot be enforced here stop the start.
    const enforcement = planEnforcement(limits, support);
    if (unenforcedLimits(enforcement).length && !sandbox.allowUnenforced) throw new LimitsUnenforceable(limits, enforcement, sandbox.server);
    const ready = await prepareForLimits(spec, sandbox.limits, sandbox.preparer);
    const plan = planLaunch(ready, {
      limits: sandbox.limits,
      support,
      hide: sandbox.hide?.(),
      allowUnenforced: sandbox.allowUnenforced,
      server: sandbox.server,
    });
    return launch(spec, plan, stdio, onStderr);
  } catch (err) {
    return refused(spec.command, err as Error);
  }
}

function launch(spec: StdioServerSpec, plan: LaunchPlan, stdio: [ServerStdio, ServerStdio], onStderr?: (text: string) => void): SpawnedServer {
  const child = spawn(plan.command, plan.args, {
    env: plan.env,
    cwd: plan.cwd,
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
  void exited.then(() => {
    // Whatever it left behind goes with it (a PID namespace already took it, where there is one).
    if (plan.sweep) void endLeftovers(child, plan);
    if (plan.scratch) rmSync(plan.scratch, { recursive: true, force: true });
  });
  started.catch(() => undefined);
  return { child, started, exited, enforcement: plan.enforcement, plan };
}

async function endLeftovers(child: ChildProcess, plan: LaunchPlan): Promise<void> {
  await endTree(
    (signal) => killTree(child, signal),
    () => (child.pid !== undefined ? treeOf(child.pid, plan.treeMarker) : Promise.resolve([])),
  );
}

/**
 * Waits a little for a polite exit, then ends the tree: SIGTERM, then SIGKILL. Without a PID
 * namespace, the descendants are gathered first, while their parent links still lead to the server.
 */
export async function stopServer(server: SpawnedServer, graceMs = 500): Promise<void> {
  const { child, exited, plan } = server;
  if (!child) return;
  const sweep = async (): Promise<number[]> => (plan?.sweep && child.pid !== undefined ? treeOf(child.pid, plan.treeMarker) : []);
  const gathered = new Set(await sweep());
  const tree = async (): Promise<number[]> => [...new Set([...gathered, ...(await sweep())])];
  const graceful = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
  if (!graceful) {
    killTree(child, 'SIGTERM');
    const termed = await Promise.race([exited.then(() => true), delay(2000).then(() => false)]);
    if (!termed) killTree(child, 'SIGKILL');
  }
  // The leader has gone (or been killed); make sure nothing it started lingers.
  await endTree((signal) => killTree(child, signal), tree);
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
