// The broker's end of `connect`'s report connection (relay mode). Reports of leased calls come on a socket
// of their own that the broker does not watch while a session runs: the socket's server gives its sockets
// a readable high-water mark of 1 byte, so once a chunk waits unread Node stops reading the handle, and
// a write to it wakes nobody. What waits is taken every REPORT_BATCH_MS (one timer for all sessions), and
// at once when the broker needs the full picture: before a decide (up to the count `connect` says it
// has reported), to the socket's end when the session closes, and before the audit log is queried.
// The bytes are in the kernel before the call reaches the server (report-order.ts): a killed `connect`
// loses nothing, because closing a session reads this socket to its end first.
import type { Socket } from 'node:net';
import { LineFramer } from '../../wire/line-framer.js';

/** How long a report may wait in the kernel while the session runs (its entry is then written within AuditBatch's 10 ms). */
export const REPORT_BATCH_MS = 10;
/** A report line carries one call's arguments (a client message is at most 32 MiB): room to spare. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

const due = new Set<ReportReader>();
let timer: NodeJS.Timeout | undefined;

function takeDue(): void {
  timer = undefined;
  const readers = [...due];
  due.clear();
  for (const r of readers) r.take();
}

export class ReportReader {
  /** Lines taken so far (`connect` counts the lines it wrote the same way). */
  received = 0;
  private readonly framer: LineFramer;
  /** The lines of the take under way. */
  private batch: Buffer[] = [];
  private ended = false;
  /** Reading as bytes come: the session is closing, or someone waits for a count. */
  private eager = false;
  private readonly waiters: Array<{ count: number; resolve(): void }> = [];
  private readonly endWaiters: Array<() => void> = [];

  /** `onLines`: the complete lines of one take, in order. `onBroken`: a line too long (the socket is dropped). */
  constructor(
    private readonly socket: Socket,
    private readonly onLines: (lines: Buffer[]) => void,
    private readonly onBroken: (why: string) => void,
  ) {
    this.framer = new LineFramer({
      maxLineBytes: MAX_LINE_BYTES,
      // A blank line is no report.
      onLine: (line) => void (line.length && this.batch.push(line)),
      onOverflow: () => {
        this.socket.destroy();
        this.onBroken(`a report line longer than ${MAX_LINE_BYTES} bytes`);
      },
    });
    socket.on('readable', () => {
      if (this.eager || this.waiters.length) this.take();
      else {
        due.add(this);
        timer ??= setTimeout(takeDue, REPORT_BATCH_MS);
      }
    });
    const finish = (): void => {
      if (this.ended) return;
      this.take();
      this.ended = true;
      due.delete(this);
      for (const w of this.waiters.splice(0)) w.resolve();
      for (const w of this.endWaiters.splice(0)) w();
    };
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', () => socket.destroy());
  }

  /** Takes every byte Node holds for this socket now; reading it may start the handle again (one more wakeup, then it stops). */
  take(): void {
    due.delete(this);
    let chunk: Buffer | null;
    while ((chunk = this.socket.read() as Buffer | null) !== null) this.framer.push(chunk);
    const lines = this.batch;
    this.batch = [];
    if (lines.length) {
      this.received += lines.length;
      this.onLines(lines);
    }
    if (this.waiters.length) {
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        if (this.received >= this.waiters[i]!.count) this.waiters.splice(i, 1)[0]!.resolve();
      }
    }
  }

  /** Resolves once `count` lines are taken (or the socket has ended: there will be no more). */
  until(count: number): Promise<void> {
    this.take();
    if (this.received >= count || this.ended) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Takes what is in the kernel now: the handle is read in the next poll, before setImmediate runs. */
  async drain(): Promise<void> {
    this.take();
    if (this.ended) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.take();
  }

  /** Reads to the socket's end, or gives up after `timeoutMs` (a `connect` that neither writes nor closes). */
  toEnd(timeoutMs: number): Promise<void> {
    this.eager = true;
    this.take();
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.take();
        resolve();
      }, timeoutMs);
      this.endWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
