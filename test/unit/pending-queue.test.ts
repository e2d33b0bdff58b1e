import { afterEach, describe, expect, it, vi } from 'vitest';
import { PendingQueue } from '../../electron/broker/calls/pending-queue.js';
import { effectiveHints } from '../../shared/annotations.js';

const call = {
  server: 's',
  serverTrusted: false,
  tool: 't',
  arguments: {},
  reasons: [],
  hints: effectiveHints(undefined),
  preview: true,
  findings: [],
  client: { session: 'x' },
};

describe('PendingQueue', () => {
  afterEach(() => vi.useRealTimers());

  it('resolves once: the first decision wins, later ones are refused', async () => {
    const removed: string[] = [];
    const q = new PendingQueue({ onAdded: () => undefined, onRemoved: (_id, why) => removed.push(why) });
    const w = q.wait(call, { timeoutMs: 60_000, signal: new AbortController().signal, sendProgress: () => undefined });
    expect(q.list().map((c) => c.id)).toEqual([w.id]);
    expect(q.decide(w.id, { kind: 'deny', reason: 'no' }, 'browser')).toBe(true);
    expect(q.decide(w.id, { kind: 'allow-once' }, 'browser')).toBe(false);
    await expect(w.result).resolves.toEqual({ kind: 'deny', reason: 'no', by: 'person', actor: 'browser' });
    expect(removed).toEqual(['denied']);
    expect(q.size).toBe(0);
  });

  it('denies on timeout, sends progress while waiting, and stops both after', async () => {
    vi.useFakeTimers();
    const progress: number[] = [];
    const q = new PendingQueue({ progressIntervalMs: 1000, onAdded: () => undefined, onRemoved: () => undefined });
    const w = q.wait(call, { timeoutMs: 3500, signal: new AbortController().signal, sendProgress: (p) => progress.push(p) });
    vi.advanceTimersByTime(3500);
    await expect(w.result).resolves.toEqual({ kind: 'deny', by: 'timeout' });
    vi.advanceTimersByTime(5000);
    expect(progress).toEqual([1, 2, 3]);
    expect(q.decide(w.id, { kind: 'allow-once' }, 'browser')).toBe(false);
  });

  it('an abort (client cancel or session end) removes the call, saying whose it was', async () => {
    const removed: string[] = [];
    const q = new PendingQueue({ onAdded: () => undefined, onRemoved: (_id, why) => removed.push(why) });
    const byClient = new AbortController();
    const a = q.wait(call, { timeoutMs: 60_000, signal: byClient.signal, sendProgress: () => undefined });
    byClient.abort({ by: 'client', reason: 'Request timed out' });
    await expect(a.result).resolves.toEqual({ kind: 'cancelled', end: { by: 'client', reason: 'Request timed out' } });
    const bySession = new AbortController();
    const b = q.wait(call, { timeoutMs: 60_000, signal: bySession.signal, sendProgress: () => undefined });
    bySession.abort();
    await expect(b.result).resolves.toEqual({ kind: 'cancelled', end: { by: 'session', why: 'the session ended' } });
    expect(removed).toEqual(['agent-stopped', 'cancelled']);
    expect(q.decide(a.id, { kind: 'allow-once' }, 'browser')).toBe(false);
  });
});
