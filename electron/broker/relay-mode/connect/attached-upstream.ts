// `connect`'s side of the server the broker started for it: a second connection to the broker's socket
// that, once presented with the session's attach token, is the server's own stdin and stdout.
import { connect as connectSocket, type Socket } from 'node:net';
import type { JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import { HANDSHAKE_VERSION } from '../../local/handshake.js';
import { LineTransport } from '../../wire/line-transport.js';
import type { ExitInfo } from '../../upstream/server-process.js';
import type { MessageTransport } from '../../wire/transport.js';

/** How long to wait for the broker's word on why the server's stdio ended. */
const EXIT_INFO_WAIT_MS = 1000;
const START_TIMEOUT_MS = 30_000;

export class AttachedUpstream implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;
  /** Why the server went away, once the broker has said. */
  exit?: ExitInfo;
  /** Sees each line from the server as bytes first (the fast lane); true when it handled it. */
  takeLine?: (line: Buffer) => boolean;

  private socket?: Socket;
  private lines?: LineTransport;
  private started?: (r: { ok: true } | { ok: false; error: string }) => void;
  private exitWaiter?: () => void;
  private closedFired = false;

  constructor(
    private readonly socketPath: string,
    private readonly token: string,
  ) {}

  async start(): Promise<void> {
    const socket = await openSocket(this.socketPath);
    this.socket = socket;
    socket.on('error', () => undefined);
    const ready = new Promise<{ ok: true } | { ok: false; error: string }>((resolve) => {
      this.started = resolve;
      setTimeout(() => resolve({ ok: false, error: 'Countersign did not start the server in time' }), START_TIMEOUT_MS).unref();
    });
    socket.write(JSON.stringify({ countersign: HANDSHAKE_VERSION, attach: this.token }) + '\n');
    const r = await ready;
    if (!r.ok) {
      // The same words as a start error the broker saw itself: the OS's reason, without our prefix.
      this.exit ??= { code: null, signal: null, stderrTail: '', startError: r.error.replace(/^could not start '.*?': /, '') };
      socket.destroy();
      this.fireClose();
      throw new Error(r.error);
    }
    const lines = new LineTransport({ input: socket, output: socket, onCloseStreams: () => socket.end(), takeLine: this.takeLine });
    this.lines = lines;
    lines.onmessage = (m) => this.onmessage?.(m);
    lines.onclose = () => void this.stdioEnded();
    lines.onerror = () => undefined;
    await lines.start();
  }

  /** The broker's answer to our attach. */
  upstreamReady(r: { ok: true } | { ok: false; error: string }): void {
    this.started?.(r);
  }

  /** The broker saw the server exit. */
  exited(exit: ExitInfo): void {
    this.exit = exit;
    this.exitWaiter?.();
  }

  /** The broker is gone: nothing more will come. */
  brokerGone(): void {
    this.started?.({ ok: false, error: 'Countersign stopped' });
    this.exitWaiter?.();
  }

  send(message: JsonRpcMessage): Promise<void> {
    // Not async: every message to the server passes here.
    if (!this.lines || this.exit) return Promise.reject(new Error('server is not running'));
    return this.lines.send(message);
  }

  /** Writes a line that is already JSON bytes, newline included. */
  sendBytes(line: Buffer): Promise<void> {
    if (!this.lines || this.exit) return Promise.reject(new Error('server is not running'));
    return this.lines.sendBytes(line);
  }

  /** Holds what is written to the server until uncork (see report-order.ts). */
  cork(): void {
    this.socket?.cork();
  }

  uncork(): void {
    this.socket?.uncork();
  }

  async close(): Promise<void> {
    this.socket?.end();
    this.fireClose();
  }

  private async stdioEnded(): Promise<void> {
    if (!this.exit) {
      // The socket usually ends a moment before the broker reports the exit: wait for its reason.
      await new Promise<void>((resolve) => {
        this.exitWaiter = resolve;
        setTimeout(resolve, EXIT_INFO_WAIT_MS).unref();
      });
    }
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closedFired) return;
    this.closedFired = true;
    this.onclose?.();
  }
}

export function openSocket(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connectSocket(path);
    s.once('connect', () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}
