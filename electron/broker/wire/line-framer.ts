// Newline framing, the one way Countersign cuts a byte stream into lines: a transport's input
// (line-transport.ts), `connect`'s report socket as the broker reads it (relay-mode/broker/report-reader.ts),
// and the first line `connect` answers when it cannot reach the broker (cli/connect.ts). A line longer
// than the limit is never held whole: what it held is dropped, its first bytes kept to say what it was.
const NEWLINE = 10;
/** How much of a line that is too long is kept, to read its id or tool from. */
const HEAD_BYTES = 4096;

export interface LineFramerOptions {
  /** A line of more bytes than this (its newline not counted) is too long. */
  maxLineBytes: number;
  /** Each complete line without its newline, an empty one too; a view into the chunk when it came whole. */
  onLine(line: Buffer): void;
  /** A line just grew past the limit: what it held so far is dropped, and the rest of it is skipped. */
  onOverflow?(): void;
  /** The end of a line that was too long: its first bytes as text (a few thousand characters). */
  onLongLine?(head: string): void;
}

export class LineFramer {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Skipping the rest of a line that is too long. */
  private discarding = false;
  private discardHead = '';

  constructor(private readonly opts: LineFramerOptions) {}

  /** Takes the next bytes of the stream; complete lines go to onLine as they end. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (this.discarding) {
        if (this.discardHead.length < HEAD_BYTES) this.discardHead += piece.subarray(0, HEAD_BYTES).toString('utf8');
      } else if (this.buffered + piece.length > this.opts.maxLineBytes) {
        this.discarding = true;
        this.discardHead = Buffer.concat([...this.chunks, piece.subarray(0, HEAD_BYTES)])
          .subarray(0, HEAD_BYTES)
          .toString('utf8');
        this.chunks = [];
        this.buffered = 0;
        this.opts.onOverflow?.();
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
      const head = this.discardHead;
      this.discarding = false;
      this.discardHead = '';
      this.opts.onLongLine?.(head);
      return;
    }
    const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.buffered = 0;
    this.opts.onLine(line);
  }
}
