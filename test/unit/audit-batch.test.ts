// The broker's call entries by group commit on a real AuditLog in a temp dir: one write per turn of the
// event loop, in order, hash-chained, flushed by any read or other append first, and each entry's promise
// (which holds the call's answer) settles only once the entry is on disk, or says it is not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditBatch, LATER_MS, MAX_BATCH_ENTRIES } from '../../electron/broker/audit-batch.js';
import { AuditLog, AuditWriteError, type NewAuditEntry } from '../../electron/broker/audit-log.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-audit-batch-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function call(n: number): NewAuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), server: 'everything', tool: 'echo',
    arguments: { message: `call ${n}` }, decision: 'allow', decidedBy: 'policy', reasons: [], durationMs: 1, status: 'ok',
  };
}

function setup(): { log: AuditLog; batch: AuditBatch; writes: number[]; onDisk: () => number } {
  const dir = tempDir();
  const { log } = AuditLog.open(dir);
  const writes: number[] = [];
  // What the broker does through its guard: how many of the entries reached the disk.
  const batch = new AuditBatch((entries) => {
    writes.push(entries.length);
    try {
      return log.appendMany(entries).length;
    } catch (err) {
      if (err instanceof AuditWriteError) return err.written.length;
      throw err;
    }
  });
  log.beforeAccess = () => batch.flush();
  const onDisk = (): number => (fs.existsSync(log.path) ? fs.readFileSync(log.path, 'utf8').split('\n').filter(Boolean).length : 0);
  return { log, batch, writes, onDisk };
}

describe('AuditBatch', () => {
  it('writes the entries of one turn in one write, in order, and settles each only once it is on disk', async () => {
    const { log, batch, writes, onDisk } = setup();
    const seenOnDisk: number[] = [];
    const pushed = [1, 2, 3, 4, 5].map((n) => batch.push(call(n)).then((ok) => (seenOnDisk.push(onDisk()), ok)));
    expect(onDisk()).toBe(0);
    expect(await Promise.all(pushed)).toEqual([true, true, true, true, true]);
    // Every answer released saw all five entries on disk already.
    expect(seenOnDisk).toEqual([5, 5, 5, 5, 5]);
    expect(writes).toEqual([5]);
    expect(batch.size).toBe(0);
    const entries = log.read();
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(entries.map((e) => (e.arguments as { message: string }).message)).toEqual(['call 1', 'call 2', 'call 3', 'call 4', 'call 5']);
    expect(log.verify()).toEqual({ ok: true, entries: 5, problems: [] });
  });

  it('writes within the same turn of the event loop: no timer delays an answer', async () => {
    const { batch, onDisk } = setup();
    const written = batch.push(call(1));
    await new Promise((r) => setImmediate(r));
    expect(onDisk()).toBe(1);
    expect(await written).toBe(true);
  });

  it('is flushed by a read, so the log never looks behind to its own process', async () => {
    const { log, batch, onDisk } = setup();
    const a = batch.push(call(1));
    const b = batch.push(call(2));
    expect(log.read().map((e) => e.seq)).toEqual([1, 2]);
    expect(onDisk()).toBe(2);
    expect(await Promise.all([a, b])).toEqual([true, true]);
  });

  it('keeps order and the chain when another entry is appended directly meanwhile', () => {
    const { log, batch } = setup();
    void batch.push(call(1));
    log.append({ ...call(2), tool: 'change' });
    void batch.push(call(3));
    batch.flush();
    expect(log.read().map((e) => e.tool)).toEqual(['echo', 'change', 'echo']);
    expect(log.verify().ok).toBe(true);
  });

  it('writes at once when a batch is full', () => {
    const { batch, onDisk } = setup();
    for (let n = 1; n <= MAX_BATCH_ENTRIES; n++) void batch.push(call(n));
    expect(onDisk()).toBe(MAX_BATCH_ENTRIES);
  });

  it('says which entries the log did not take: their answers must not claim a written entry', async () => {
    const { log, batch } = setup();
    const first = batch.push(call(1));
    expect(await first).toBe(true);
    // The log's folder is gone: the append fails with a real ENOENT.
    fs.rmSync(path.dirname(log.path), { recursive: true, force: true });
    const lost = [batch.push(call(2)), batch.push(call(3))];
    expect(await Promise.all(lost)).toEqual([false, false]);
  });

  it('settles false, never true, when the writer itself throws', async () => {
    const batch = new AuditBatch(() => {
      throw new Error('broken writer');
    });
    expect(await batch.push(call(1))).toBe(false);
  });

  it('writes entries nobody waits on within a few ms, together, and with the next waited entry in order', async () => {
    const { log, batch, writes, onDisk } = setup();
    batch.later(call(1));
    batch.later(call(2));
    await new Promise((r) => setImmediate(r));
    // No answer waits on them: they wait a little for company instead of taking a write each.
    expect(onDisk()).toBe(0);
    await new Promise((r) => setTimeout(r, LATER_MS + 20));
    expect(onDisk()).toBe(2);
    expect(writes).toEqual([2]);
    batch.later(call(3));
    const waited = batch.push(call(4));
    // An answer held for its entry does not wait for the timer, and takes the earlier entry along, in order.
    expect(await waited).toBe(true);
    expect(writes).toEqual([2, 2]);
    expect(log.read().map((e) => (e.arguments as { message: string }).message)).toEqual(['call 1', 'call 2', 'call 3', 'call 4']);
    expect(log.verify().ok).toBe(true);
  });

  it('writes entries nobody waits on at once when a batch is full, and on a read', () => {
    const { log, batch, onDisk } = setup();
    for (let n = 1; n <= MAX_BATCH_ENTRIES; n++) batch.later(call(n));
    expect(onDisk()).toBe(MAX_BATCH_ENTRIES);
    batch.later(call(MAX_BATCH_ENTRIES + 1));
    expect(log.read()).toHaveLength(MAX_BATCH_ENTRIES + 1);
  });
});
