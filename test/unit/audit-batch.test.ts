// The broker's batched call entries on a real AuditLog in a temp dir: nothing written on the call path,
// everything written soon after, in order, hash-chained, and flushed by any read or other append first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditBatch, BATCH_DELAY_MS, MAX_BATCH_ENTRIES } from '../../electron/broker/audit-batch.js';
import { AuditLog, type NewAuditEntry } from '../../electron/broker/audit-log.js';

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

function setup(): { log: AuditLog; batch: AuditBatch; failures: Array<{ err: Error; entries: NewAuditEntry[] }>; onDisk: () => number } {
  const dir = tempDir();
  const { log } = AuditLog.open(dir);
  const failures: Array<{ err: Error; entries: NewAuditEntry[] }> = [];
  const batch = new AuditBatch((entries) => void log.appendMany(entries), (err, entries) => failures.push({ err, entries }));
  log.beforeAccess = () => batch.flush();
  const onDisk = (): number => (fs.existsSync(log.path) ? fs.readFileSync(log.path, 'utf8').split('\n').filter(Boolean).length : 0);
  return { log, batch, failures, onDisk };
}

describe('AuditBatch', () => {
  it('writes nothing on the call path, then the whole batch in order within its delay', async () => {
    const { log, batch, onDisk } = setup();
    for (let n = 1; n <= 5; n++) batch.push(call(n));
    expect(onDisk()).toBe(0);
    await new Promise((r) => setTimeout(r, BATCH_DELAY_MS * 5));
    expect(onDisk()).toBe(5);
    expect(batch.size).toBe(0);
    const entries = log.read();
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(entries.map((e) => (e.arguments as { message: string }).message)).toEqual(['call 1', 'call 2', 'call 3', 'call 4', 'call 5']);
    expect(log.verify()).toEqual({ ok: true, entries: 5, problems: [] });
  });

  it('is flushed by a read, so the log never looks behind to its own process', () => {
    const { log, batch, onDisk } = setup();
    batch.push(call(1));
    batch.push(call(2));
    expect(log.read().map((e) => e.seq)).toEqual([1, 2]);
    expect(onDisk()).toBe(2);
  });

  it('keeps order and the chain when another entry is appended directly meanwhile', () => {
    const { log, batch } = setup();
    batch.push(call(1));
    log.append({ ...call(2), tool: 'change' });
    batch.push(call(3));
    batch.flush();
    expect(log.read().map((e) => e.tool)).toEqual(['echo', 'change', 'echo']);
    expect(log.verify().ok).toBe(true);
  });

  it('writes at once when a batch is full', () => {
    const { batch, onDisk } = setup();
    for (let n = 1; n <= MAX_BATCH_ENTRIES; n++) batch.push(call(n));
    expect(onDisk()).toBe(MAX_BATCH_ENTRIES);
  });

  it('hands a batch it could not write to its failure handler, entries included', async () => {
    const { log, batch, failures } = setup();
    batch.push(call(1));
    // The log's folder is gone: the append fails with a real ENOENT.
    fs.rmSync(path.dirname(log.path), { recursive: true, force: true });
    await new Promise((r) => setTimeout(r, BATCH_DELAY_MS * 5));
    expect(failures).toHaveLength(1);
    expect((failures[0]!.err as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(failures[0]!.entries.map((e) => (e.arguments as { message: string }).message)).toEqual(['call 1']);
  });
});
