// Newline-delimited JSON-RPC over any pair of streams: a child's stdio, a local socket, our own stdin/stdout.
import type { Readable, Writable } from 'node:stream';
import { ErrorCode, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { guardLine, refusalFor, type Refused } from './jsonrpc-guard.js';
import { sniffId } from './id-sniff.js';
import type { MessageTransport } from './transport.js';
import { LineFramer } from './line-framer.js';

export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const DONE = Promise.resolve();

export interface LineTransportOptions {
  input: Readable;
  output: Writable;
  maxMessageBytes?: number;
  /** Called for a line that is not a valid message; the transport keeps going. */
  onBadLine?: (problem: BadLine) => void;
  /** Ends the underlying streams when the transport closes. */
  onCloseStreams?: () => void;
  /** Sees each line as bytes first (`connect`'s fast lane); true when it handled the line itself. */
  takeLine?: (line: Buffer) => boolean;
  /** The lines are a client's: checked as client input is (jsonrpc-guard.ts: no BOM, no repeated envelope key). */
  client?: boolean;
}

/** A line that is not a valid message: why, the id to answer (null when none could be read), what it held. */
export type BadLine = Refused;

export class LineTransport implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;

  private readonly framer: LineFramer;
  private closed = false;
  private readonly max: number;

  constructor(private readonly opts: LineTransportOptions) {
    this.max = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.framer = new LineFramer({
      maxLineBytes: this.max,
      onLine: (line) => this.onLine(line),
      onLongLine: (head) =>
        this.opts.onBadLine?.({ reason: `message is larger than the ${this.max} byte limit`, code: ErrorCode.InvalidRequest, id: sniffId(head), head }),
    });
  }

  async start(): Promise<void> {
    const { input } = this.opts;
    input.on('data', (chunk: Buffer | string) => this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.on('end', () => void this.close());
    input.on('close', () => void this.close());
    input.on('error', (err: Error) => this.onerror?.(err));
    this.opts.output.on('error', (err: Error) => {
      this.onerror?.(err);
      void this.close();
    });
  }

  private onLine(bytes: Buffer): void {
    if (this.opts.takeLine?.(bytes)) return;
    // Checked on the bytes: invalid UTF-8 is refused, never re-encoded as U+FFFD and passed on.
    const guarded = guardLine(bytes, this.opts.client);
    if (guarded.ok) return void this.onmessage?.(guarded.message);
    if (guarded.empty) return;
    const { ok: _ok, empty: _empty, ...bad } = guarded;
    this.opts.onBadLine?.(bad);
  }

  send(message: JsonRpcMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport is closed'));
    const out = this.opts.output;
    let line: string;
    try {
      line = JSON.stringify(message) + '\n';
    } catch (err) {
      return Promise.reject(err as Error);
    }
    // Not async: this runs for every message both ways, and a drained write needs no promise.
    if (out.write(line)) return DONE;
    return new Promise<void>((resolve) => out.once('drain', resolve));
  }

  /** Writes a line that is already JSON bytes, newline included (the fast lane's pass-through). */
  sendBytes(line: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport is closed'));
    const out = this.opts.output;
    if (out.write(line)) return DONE;
    return new Promise<void>((resolve) => out.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.opts.onCloseStreams?.();
    this.onclose?.();
  }
}

/** The JSON-RPC answer to a bad line (`"id": null` when it carried none that could be read). */
export function badLineResponse(bad: BadLine): JsonRpcMessage {
  return refusalFor(bad);
}
