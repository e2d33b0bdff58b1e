// Spawns a stdio MCP server and speaks newline-delimited JSON-RPC with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { LineTransport } from './line-transport.js';
import { scrubbedEnv } from './scrub-env.js';
import type { MessageTransport } from './transport.js';
import type { JsonRpcMessage } from '../../shared/jsonrpc.js';

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

export class StdioUpstream implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  /** Why the server went away, once it has. */
  exit?: ExitInfo;

  private child?: ChildProcess;
  private lines?: LineTransport;
  private stderrTail = '';
  private closing = false;
  private closedFired = false;

  constructor(
    private readonly spec: StdioServerSpec,
    private readonly opts: { maxMessageBytes?: number; onStderr?: (text: string) => void; onExit?: (exit: ExitInfo) => void } = {},
  ) {}

  async start(): Promise<void> {
    const child = spawn(this.spec.command, this.spec.args ?? [], {
      env: scrubbedEnv(this.spec.env),
      cwd: this.spec.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so the whole tree can be ended (npx → node → server).
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.child = child;
    const lines = new LineTransport({ input: child.stdout!, output: child.stdin!, maxMessageBytes: this.opts.maxMessageBytes });
    this.lines = lines;
    lines.onmessage = (m) => this.onmessage?.(m);
    lines.onerror = () => {
      // Broken pipes surface as the exit below.
    };
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_BYTES);
      this.opts.onStderr?.(text);
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (err) => {
        this.exit = { code: null, signal: null, stderrTail: '', startError: err.message };
        reject(new Error(`could not start '${this.spec.command}': ${err.message}`));
        this.fireClose();
      });
    });
    child.once('exit', (code, signal) => {
      this.exit = { code, signal, stderrTail: this.stderrTail };
      // Let stdout drain before we report the close, so a last response is not lost.
      if (child.stdout!.readableEnded) this.fireClose();
      else child.stdout!.once('close', () => this.fireClose());
    });
    await lines.start();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (!this.lines || this.exit) throw new Error('server is not running');
    await this.lines.send(message);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const child = this.child;
    if (!child || this.exit) {
      this.fireClose();
      return;
    }
    child.stdin?.end();
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const graceful = await Promise.race([exited.then(() => true), delay(500).then(() => false)]);
    if (!graceful) {
      killTree(child, 'SIGTERM');
      const termed = await Promise.race([exited.then(() => true), delay(2000).then(() => false)]);
      if (!termed) killTree(child, 'SIGKILL');
    } else {
      // The leader left; make sure nothing it started lingers.
      killTree(child, 'SIGTERM');
    }
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closedFired) return;
    this.closedFired = true;
    if (this.exit && !this.closing) this.opts.onExit?.(this.exit);
    this.onclose?.();
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
