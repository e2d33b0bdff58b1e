// Spawns a stdio MCP server and speaks newline-delimited JSON-RPC with it.
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import { NO_LIMITS, type LimitsEnforcement } from '../../../shared/limits.js';
import { LineTransport } from '../wire/line-transport.js';
import { spawnServer, stopServer, type ExitInfo, type SandboxOptions, type SpawnedServer, type StdioServerSpec } from './server-process.js';
import type { MessageTransport } from '../wire/transport.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';

export { killTree, type ExitInfo, type StdioServerSpec } from './server-process.js';

export class StdioUpstream implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  /** Why the server went away, once it has. */
  exit?: ExitInfo;

  private server?: SpawnedServer;
  private lines?: LineTransport;
  private closing = false;
  private closedFired = false;

  constructor(
    private readonly spec: StdioServerSpec,
    private readonly opts: {
      maxMessageBytes?: number;
      onStderr?: (text: string) => void;
      onExit?: (exit: ExitInfo) => void;
      sandbox?: SandboxOptions;
      /** Sees each line from the server as bytes first (http/result-lane.ts); true when it handled it. */
      takeLine?: (line: Buffer) => boolean;
    } = {},
  ) {}

  async start(): Promise<void> {
    const server = await spawnServer(this.spec, ['pipe', 'pipe'], this.opts.onStderr, this.opts.sandbox);
    this.server = server;
    const { child, started, exited } = server;
    if (!child) {
      this.exit = await exited;
      this.fireClose();
      return started;
    }
    const lines = new LineTransport({ input: child.stdout!, output: child.stdin!, maxMessageBytes: this.opts.maxMessageBytes, takeLine: this.opts.takeLine });
    this.lines = lines;
    lines.onmessage = (m) => this.onmessage?.(m);
    lines.onerror = () => {
      // Broken pipes surface as the exit below.
    };
    void exited.then((exit) => {
      this.exit = exit;
      if (exit.startError) return this.fireClose();
      // Let stdout drain before we report the close, so a last response is not lost.
      if (child.stdout!.readableEnded) this.fireClose();
      else child.stdout!.once('close', () => this.fireClose());
    });
    try {
      await started;
    } catch (err) {
      this.exit = await exited;
      this.fireClose();
      throw err;
    }
    await lines.start();
  }

  get pid(): number | undefined {
    return this.server?.child?.pid;
  }

  /** Which of the server's limits are enforced, once it has started. */
  get enforcement(): LimitsEnforcement | undefined {
    return this.server?.enforcement;
  }

  /** The limits it started under with how they stand; undefined until it has started. */
  get limitsInForce(): LimitsInForce | undefined {
    const enforcement = this.server?.enforcement;
    return enforcement ? { limits: this.opts.sandbox?.limits ?? NO_LIMITS, enforcement } : undefined;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (!this.lines || this.exit) throw new Error('server is not running');
    await this.lines.send(message);
  }

  async sendLine(line: Buffer): Promise<void> {
    if (!this.lines || this.exit) throw new Error('server is not running');
    await this.lines.sendBytes(line);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const server = this.server;
    if (!server?.child || this.exit) {
      this.fireClose();
      return;
    }
    server.child.stdin?.end();
    await stopServer(server);
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closedFired) return;
    this.closedFired = true;
    if (this.exit && !this.closing) this.opts.onExit?.(this.exit);
    this.onclose?.();
  }
}
