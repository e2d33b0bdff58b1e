// One destination's export (audit-export/export-pipe.ts) with a sink that fails on demand, a source of
// entries in memory, the real cursor file, and fake timers: the backoff, down, backlog past its bound,
// the memory bound on the queue, and the cursor (resumed, verified, moved only once a batch was taken).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { AuditExport } from '../../electron/broker/audit-export/audit-export.js';
import { CURSOR_FILE, ExportCursor } from '../../electron/broker/audit-export/export-cursor.js';
import { BACKLOG_BOUND, BATCH_MAX, DOWN_AFTER, ExportPipe, QUEUE_MAX, RETRY_MAX_MS, type EntrySource } from '../../electron/broker/audit-export/export-pipe.js';
import type { ExportSink } from '../../electron/broker/audit-export/export-sink.js';

const entry = (seq: number, hash = `h${seq}`): AuditEntry => ({
  seq,
  time: new Date(1_700_000_000_000 + seq).toISOString(),
  server: 's',
  tool: 't',
  arguments: {},
  decision: 'allow',
  decidedBy: 'policy',
  reasons: [],
  durationMs: 0,
  status: 'ok',
  prev: `h${seq - 1}`,
  hash,
});

class MemorySource implements EntrySource {
  entries: AuditEntry[] = [];
  starts: number[] = [];
  last?: number;
  private listeners = new Set<(e: AuditEntry) => void>();
  constructor(n: number) {
    for (let i = 1; i <= n; i++) this.entries.push(entry(i));
  }
  start(afterSeq: number, onEntry: (e: AuditEntry) => void): () => void {
    this.starts.push(afterSeq);
    let stopped = false;
    const listener = (e: AuditEntry) => !stopped && onEntry(e);
    // As the log's follower: what is there comes a tick later, in order, then each new entry.
    void Promise.resolve().then(() => {
      for (const e of this.entries) if (!stopped && e.seq > afterSeq) onEntry(e);
      if (!stopped) this.listeners.add(listener);
    });
    return () => {
      stopped = true;
      this.listeners.delete(listener);
    };
  }
  append(n: number): void {
    for (let i = 0; i < n; i++) {
      const e = entry(this.entries.length + 1);
      this.entries.push(e);
      for (const l of this.listeners) l(e);
    }
  }
  lastSeq(): number {
    return this.last ?? this.entries.length;
  }
}

class FlakySink implements ExportSink {
  readonly kind = 'otlp' as const;
  readonly target = 'test://sink';
  failing = 0;
  attempts: Array<{ at: number; seqs: number[] }> = [];
  taken: number[] = [];
  hold?: Promise<void>;
  async send(entries: AuditEntry[]): Promise<void> {
    this.attempts.push({ at: Date.now(), seqs: entries.map((e) => e.seq) });
    if (this.hold) await this.hold;
    if (this.failing > 0) {
      this.failing--;
      throw new Error('collector unavailable');
    }
    this.taken.push(...entries.map((e) => e.seq));
  }
  async close(): Promise<void> {}
}

describe('the audit export pipe', () => {
  let dir: string;
  let warnings: string[];
  const pipes: ExportPipe[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cs-export-'));
    warnings = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(pipes.splice(0).map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const open = (source: EntrySource, sink: ExportSink, changed: () => void = () => undefined) => {
    const pipe = new ExportPipe({
      sink,
      cursor: new ExportCursor(dir, (w) => warnings.push(w)),
      source,
      changed,
      warn: (w) => warnings.push(w),
      random: () => 0.5,
    });
    pipes.push(pipe);
    pipe.start();
    return pipe;
  };
  const cursorSeq = () => {
    try {
      return (
        (JSON.parse(readFileSync(join(dir, CURSOR_FILE), 'utf8')) as { destinations: Record<string, { seq: number }> }).destinations['otlp test://sink']?.seq ??
        0
      );
    } catch {
      return 0;
    }
  };

  it('retries a refused batch after 1 s, 2 s, 4 s… up to a minute, reports it down after DOWN_AFTER tries, and loses nothing', async () => {
    const source = new MemorySource(10);
    const sink = new FlakySink();
    sink.failing = 9;
    let changes = 0;
    const pipe = open(source, sink, () => changes++);
    await vi.advanceTimersByTimeAsync(0);
    expect(sink.attempts).toHaveLength(1);
    expect(pipe.status()).toMatchObject({ state: 'retrying', failures: 1, lastError: 'collector unavailable', exportedSeq: 0, backlog: 10 });
    const gaps: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = sink.attempts.length;
      const t0 = Date.now();
      // Not a millisecond early…
      await vi.advanceTimersByTimeAsync(pipe.backoff(i + 1) - 1);
      expect(sink.attempts).toHaveLength(before);
      // …and then it tries again.
      await vi.advanceTimersByTimeAsync(1);
      expect(sink.attempts).toHaveLength(before + 1);
      gaps.push(Date.now() - t0);
      if (i + 2 === DOWN_AFTER) expect(pipe.status().state).toBe('down');
    }
    expect(gaps).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    expect(Math.max(...gaps)).toBe(RETRY_MAX_MS);
    // The cursor never moved while it failed; the tenth try took everything, and the state is back.
    expect(sink.taken).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(cursorSeq()).toBe(10);
    expect(pipe.status()).toMatchObject({ state: 'ok', failures: 0, exportedSeq: 10, backlog: 0 });
    expect(changes).toBeGreaterThanOrEqual(3); // retrying, down, ok
  });

  it('the backoff has jitter (±20 %) so that many machines do not retry at once', () => {
    const pipe = new ExportPipe({
      sink: new FlakySink(),
      cursor: new ExportCursor(dir, () => undefined),
      source: new MemorySource(0),
      changed: () => undefined,
      warn: () => undefined,
      random: () => 0,
    });
    expect(pipe.backoff(1)).toBe(800);
    const high = new ExportPipe({
      sink: new FlakySink(),
      cursor: new ExportCursor(dir, () => undefined),
      source: new MemorySource(0),
      changed: () => undefined,
      warn: () => undefined,
      random: () => 0.999999,
    });
    expect(high.backoff(10)).toBe(72_000);
  });

  it('sends in batches of at most BATCH_MAX, and holds at most QUEUE_MAX entries: the source pauses and resumes where the queue ended', async () => {
    const source = new MemorySource(QUEUE_MAX * 2 + 100);
    const sink = new FlakySink();
    open(source, sink);
    for (let i = 0; i < 200 && sink.taken.length < source.entries.length; i++) await vi.advanceTimersByTimeAsync(1);
    expect(sink.taken).toEqual(source.entries.map((e) => e.seq));
    expect(Math.max(...sink.attempts.map((a) => a.seqs.length))).toBe(BATCH_MAX);
    // Paused at QUEUE_MAX, resumed after the last queued entry each time.
    // Paused with QUEUE_MAX queued; resumed once half was sent, after the last entry queued.
    expect(source.starts).toEqual([0, QUEUE_MAX, QUEUE_MAX * 1.5, QUEUE_MAX * 2]);
  });

  it('a backlog past its bound is reported in the status and the warnings, and nothing is dropped', async () => {
    const source = new MemorySource(5);
    source.last = BACKLOG_BOUND + 5_000; // the log holds more than it reads yet
    const sink = new FlakySink();
    sink.failing = 100;
    const exporter = new AuditExport({
      dataDir: dir,
      source,
      managed: () => ({ kind: 'none' }),
      person: () => ({ otlp: { endpoint: 'http://127.0.0.1:1/v1/logs', protocol: 'http/protobuf' } }),
      changed: () => undefined,
      warn: (w) => warnings.push(w),
      sinks: () => [sink],
    });
    exporter.refresh();
    try {
      await vi.advanceTimersByTimeAsync(0);
      const status = exporter.status()!;
      expect(status.sinks[0]).toMatchObject({ backlogExceeded: true, backlog: BACKLOG_BOUND + 5_000 });
      expect(exporter.warnings().join('\n')).toMatch(/behind, past its bound of 100000\. None is dropped/);
      sink.failing = 0;
      await vi.advanceTimersByTimeAsync(RETRY_MAX_MS);
      expect(sink.taken).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await exporter.close();
    }
  });

  it('resumes after its durable cursor; a cursor whose entry has another hash starts over from the first entry', async () => {
    const source = new MemorySource(6);
    const first = new FlakySink();
    const a = open(source, first);
    await vi.advanceTimersByTimeAsync(0);
    expect(first.taken).toEqual([1, 2, 3, 4, 5, 6]);
    await a.close();
    source.append(2);
    const second = new FlakySink();
    open(source, second);
    await vi.advanceTimersByTimeAsync(0);
    expect(second.taken).toEqual([7, 8]);
    expect(source.starts.at(-1)).toBe(5); // the entry at the cursor is read back to check it
    // The log was replaced (another chain): seq 8 is not the entry the cursor names.
    source.entries[7] = entry(8, 'other');
    const third = new FlakySink();
    open(source, third);
    await vi.advanceTimersByTimeAsync(0);
    expect(warnings.some((w) => /not the one it exported; it starts again from the first entry/.test(w))).toBe(true);
    expect(third.taken).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
