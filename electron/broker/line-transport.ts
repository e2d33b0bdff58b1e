// Newline-delimited JSON-RPC over any pair of streams: a child's stdio, a local socket, our own stdin/stdout.
import type { Readable, Writable } from 'node:stream';
import { checkEnvelope, errorResponse, ErrorCode, type JsonRpcMessage } from '../../shared/jsonrpc.js';
import type { MessageTransport } from './transport.js';

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
}

export interface BadLine {
  reason: string;
  /** The request id, when one could be read, so the peer can be answered. */
  id: string | number | null;
}

/** Finds `"id": <value>` near the start of an oversize line without parsing it all. */
function sniffId(head: string): string | number | null {
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/.exec(head);
  if (!m?.[1]) return null;
  try {
    const v: unknown = JSON.parse(m[1]);
    return typeof v === 'string' || typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

export class LineTransport implements MessageTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** While > 0 we are discarding the rest of an oversize line. */
  private discarding = false;
  private discardHead = '';
  private closed = false;
  private readonly max: number;

  constructor(private readonly opts: LineTransportOptions) {
    this.max = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    const { input } = this.opts;
    input.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.on('end', () => void this.close());
    input.on('close', () => void this.close());
    input.on('error', (err: Error) => this.onerror?.(err));
    this.opts.output.on('error', (err: Error) => {
      this.onerror?.(err);
      void this.close();
    });
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.discarding) {
        if (this.discardHead.length < 4096) this.discardHead += piece.subarray(0, 4096).toString('utf8');
      } else if (this.buffered + piece.length > this.max) {
        this.discarding = true;
        this.discardHead = Buffer.concat([...this.chunks, piece.subarray(0, 4096)]).subarray(0, 4096).toString('utf8');
        this.chunks = [];
        this.buffered = 0;
      } else if (piece.length > 0) {
        this.chunks.push(piece);
        this.buffered += piece.length;
      }
      if (nl === -1) return;
      this.finishLine();
      start = nl + 1;
    }
  }

  private finishLine(): void {
    if (this.discarding) {
      const id = sniffId(this.discardHead);
      this.discarding = false;
      this.discardHead = '';
      this.opts.onBadLine?.({ reason: `message is larger than the ${this.max} byte limit`, id });
      return;
    }
    const bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.buffered = 0;
    if (this.opts.takeLine?.(bytes)) return;
    const line = bytes.toString('utf8');
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.opts.onBadLine?.({ reason: `invalid JSON: ${(err as Error).message}`, id: sniffId(line.slice(0, 4096)) });
      return;
    }
    const checked = checkEnvelope(value);
    if (!checked.ok) {
      const id = typeof value === 'object' && value && 'id' in value ? (value as { id: unknown }).id : null;
      this.opts.onBadLine?.({ reason: checked.reason, id: typeof id === 'string' || typeof id === 'number' ? id : null });
      return;
    }
    this.onmessage?.(checked.message);
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

/** The JSON-RPC answer to a bad line, when it carried a request id. */
export function badLineResponse(bad: BadLine): JsonRpcMessage {
  const code = bad.reason.startsWith('invalid JSON') ? ErrorCode.ParseError : ErrorCode.InvalidRequest;
  return errorResponse(bad.id, code, `Countersign refused a message: ${bad.reason}`);
}
