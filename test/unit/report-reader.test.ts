// The broker's end of connect's report connection, on real Unix sockets from a server like the broker's
// (readable high-water mark of 1 byte): reports are taken in batches, on demand up to a count, and to the
// end when the writer is gone (a killed connect loses nothing it wrote).
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REPORT_BATCH_MS, ReportReader } from '../../electron/broker/relay-mode/broker/report-reader.js';
import { unixSocketPair } from '../helpers/unix-socket-pair.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

interface Pair {
  writer: Socket;
  socket: Socket;
  reader: ReportReader;
  /** Every batch handed over, as text lines. */
  batches: string[][];
  broken: string[];
}

async function pair(highWaterMark = 1): Promise<Pair> {
  const { client: writer, accepted: socket, close } = await unixSocketPair({ highWaterMark });
  const batches: string[][] = [];
  const broken: string[] = [];
  const reader = new ReportReader(
    socket,
    (lines) => batches.push(lines.map((l) => l.toString('utf8'))),
    (why) => broken.push(why),
  );
  cleanup.push(close);
  return { writer, socket, reader, batches, broken };
}

const lines = (p: Pair): string[] => p.batches.flat();
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('ReportReader', () => {
  it('takes reports in batches, not one wakeup per line, and every line arrives in order', async () => {
    const p = await pair();
    for (let n = 0; n < 40; n++) {
      p.writer.write(`{"n":${n}}\n`);
      await tick();
    }
    await sleep(REPORT_BATCH_MS * 3);
    await p.reader.drain();
    expect(lines(p)).toEqual(Array.from({ length: 40 }, (_, n) => `{"n":${n}}`));
    expect(p.reader.received).toBe(40);
    // Forty writes a tick apart come in a handful of takes (one per batch time), not forty.
    expect(p.batches.length).toBeLessThan(20);
  });

  it('leaves what follows the first unread chunk in the kernel until a take is due (the writes wake nobody)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const held = await pair();
      const control = await pair(16 * 1024);
      for (const p of [held, control]) {
        p.writer.write('{"n":0}\n');
        for (let i = 0; i < 5; i++) await tick();
        for (let n = 1; n < 20; n++) {
          p.writer.write(`{"n":${n}}\n`);
          for (let i = 0; i < 3; i++) await tick();
        }
      }
      // Nothing taken yet: the batch time has not passed.
      expect(lines(held)).toEqual([]);
      // Node read the first chunk and stopped; with the default high-water mark it reads every write.
      expect(held.socket.readableLength).toBe('{"n":0}\n'.length);
      expect(control.socket.readableLength).toBeGreaterThan(10 * '{"n":0}\n'.length);
      vi.advanceTimersByTime(REPORT_BATCH_MS);
      await held.reader.drain();
      expect(lines(held)).toHaveLength(20);
    } finally {
      vi.useRealTimers();
    }
  });

  it('until(n) reads at once up to the count the writer names, without waiting for the batch time', async () => {
    const p = await pair();
    for (let n = 0; n < 5; n++) p.writer.write(`{"n":${n}}\n`);
    const started = Date.now();
    await p.reader.until(5);
    expect(lines(p)).toHaveLength(5);
    expect(Date.now() - started).toBeLessThan(REPORT_BATCH_MS * 50);
    // A count already reached resolves at once.
    await p.reader.until(3);
  });

  it('joins a line written in pieces, and drain() takes what is in the kernel now', async () => {
    const p = await pair();
    p.writer.write('{"a":');
    await sleep(5);
    p.writer.write('1}\n{"b":2}\n');
    await sleep(5);
    await p.reader.drain();
    await p.reader.drain();
    expect(lines(p)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('reads to the end when the writer dies with reports unread: nothing it wrote is lost', async () => {
    const p = await pair();
    for (let n = 0; n < 200; n++) p.writer.write(`{"n":${n},"pad":"${'x'.repeat(500)}"}\n`);
    await new Promise<void>((resolve) => p.writer.end(resolve));
    p.writer.destroy();
    await p.reader.toEnd(5000);
    expect(lines(p).map((l) => (JSON.parse(l) as { n: number }).n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    // Waiting for more than it will ever get ends with the socket.
    await p.reader.until(1000);
  });

  it('gives up waiting for the end of a writer that stays open, after its time', async () => {
    const p = await pair();
    p.writer.write('{"n":1}\n');
    const started = Date.now();
    await p.reader.toEnd(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(lines(p)).toEqual(['{"n":1}']);
  });
});
