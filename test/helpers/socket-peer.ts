// A raw peer on the broker's local socket: JSON lines out, each line that comes back kept (parsed when
// it is JSON), and whether the broker closed the connection.
import { connect, type Socket } from 'node:net';

type Line = Record<string, unknown>;

export class SocketPeer {
  readonly socket: Socket;
  readonly lines: Line[] = [];
  readonly closed: Promise<void>;
  private buf = '';
  private waiters: Array<() => void> = [];

  constructor(path: string) {
    this.socket = connect(path);
    this.socket.on('error', () => undefined);
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => {
      this.buf += chunk;
      let nl;
      while ((nl = this.buf.indexOf('\n')) !== -1) {
        const text = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        try {
          this.lines.push(JSON.parse(text) as Line);
        } catch {
          this.lines.push({ unparsed: text });
        }
      }
      this.wake();
    });
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.wake();
        resolve();
      }),
    );
  }

  send(...messages: unknown[]): void {
    this.socket.write(messages.map((m) => JSON.stringify(m) + '\n').join(''));
  }

  /** The `n`th line (from 0) once it came; throws if the connection closed first. */
  async line(n: number): Promise<Line> {
    while (this.lines.length <= n) {
      if (this.socket.destroyed || this.socket.readableEnded)
        throw new Error(`the broker closed the connection after ${this.lines.length} line(s): ${JSON.stringify(this.lines)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.lines[n]!;
  }

  /** Every line the broker sent, once it closed the connection. */
  async untilClosed(): Promise<Line[]> {
    await this.closed;
    return this.lines;
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

export const rpc = (id: number, method: string, ...args: unknown[]) => ({ jsonrpc: '2.0', id, method, params: { args } });
