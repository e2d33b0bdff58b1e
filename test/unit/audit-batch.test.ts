// The broker's call entries by group commit on a real AuditLog and AuditGuard in a temp dir: one
// asynchronous write in flight at a time, the next batch forming meanwhile, in order, hash-chained;
// any read or other append first writes what is queued and finishes the write in flight; and each
// entry's promise (which holds the call's answer) settles only once the entry is on disk, or says it is not.
import { execFileSync } from 'node:child_process';
import { pbkdf2 } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditBatch, LATER_MS, MAX_BATCH_ENTRIES } from '../../electron/broker/audit/audit-batch.js';
import { AuditLog, type NewAuditEntry } from '../../electron/broker/audit/audit-log.js';
import { AuditGuard } from '../../electron/broker/audit/audit-guard.js';
import { SETTLE_MS } from '../../electron/broker/audit/log-path-anchor.js';

const temps: string[] = [];
const undo: Array<() => void> = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-audit-batch-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  vi.restoreAllMocks();
  for (const u of undo.splice(0).reverse()) u();
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function call(n: number): NewAuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    server: 'everything',
    tool: 'echo',
    arguments: { message: `call ${n}` },
    decision: 'allow',
    decidedBy: 'policy',
    reasons: [],
    durationMs: 1,
    status: 'ok',
  };
}

/** A file the disk truly refuses (chattr +i as root, where chmod does not stop writes). */
function makeFileUnwritable(file: string): () => void {
  const root = process.getuid?.() === 0;
  if (root) execFileSync('chattr', ['+i', file]);
  else fs.chmodSync(file, 0o444);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    if (root) execFileSync('chattr', ['-i', file]);
    else fs.chmodSync(file, 0o600);
  };
  undo.push(restore);
  return restore;
}

/** Long enough for the ctimes of the temp folders to be trusted (log-path-anchor.ts). */
const settled = () => new Promise((r) => setTimeout(r, SETTLE_MS + 10));

/** The ctime of the shared temp folder, to tell whether another process changed it during a test step. */
let tmpCtime = 0n;
const foldersMoved = (): boolean => fs.statSync(os.tmpdir(), { bigint: true }).ctimeNs !== tmpCtime;

/**
 * Pushes until a write goes without a look at the path (its folders vouch for the file): true once one
 * did. The temp folder is shared with other processes; a change there makes the next write look again.
 */
async function withoutLooks(push: () => Promise<boolean>): Promise<boolean> {
  for (let attempt = 0; attempt < 30; attempt++) {
    await settled();
    expect(await push()).toBe(true); // looks, and vouches for the folders
    tmpCtime = fs.statSync(os.tmpdir(), { bigint: true }).ctimeNs;
    const stat = vi.spyOn(fs, 'stat');
    const statSync = vi.spyOn(fs, 'statSync');
    expect(await push()).toBe(true);
    const looked = stat.mock.calls.length + statSync.mock.calls.length > 0;
    stat.mockRestore();
    statSync.mockRestore();
    if (!looked) return true;
  }
  return false;
}

/** The descriptors this process holds open now. */
function openDescriptors(): number[] {
  return fs.readdirSync('/proc/self/fd').map(Number);
}

/** Holds every thread of libuv's pool for a while: an fs.write issued now waits behind them. */
function occupyThreadPool(): Promise<void> {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  return Promise.all(Array.from({ length: threads }, () => new Promise<void>((resolve) => pbkdf2('x', 'y', 200_000, 32, 'sha256', () => resolve())))).then(
    () => undefined,
  );
}

/** What the broker wires (broker.ts): the batch writes through the guard into the log. */
function setup(hooks: { beforeWrite?: () => void; afterWrite?: () => void } = {}) {
  const dir = tempDir();
  const { log } = AuditLog.open(dir);
  const guard = new AuditGuard({
    write: (entries) => log.appendMany(entries),
    writeAsync: (entries) => log.appendManyAsync(entries),
    path: log.path,
    dir,
    changed: () => undefined,
    retryMs: 60_000,
  });
  undo.push(() => guard.stop());
  const writes: number[] = [];
  const looks = { count: 0 };
  const batch = new AuditBatch({
    prepare: () => (looks.count++, log.lookAtFile()),
    fresh: () => log.hasFreshLook(),
    write: (entries) => {
      writes.push(entries.length);
      hooks.beforeWrite?.();
      const done = guard.appendAsync(entries).then((w) => w.length);
      hooks.afterWrite?.();
      return done;
    },
    writeNow: (entries) => guard.append(entries).length,
  });
  log.beforeAccess = () => batch.flush();
  const onDisk = (): string[] =>
    fs.existsSync(log.path)
      ? fs
          .readFileSync(log.path, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { arguments: { message: string } }).arguments.message)
      : [];
  return { dir, log, guard, batch, writes, looks, onDisk };
}

describe('AuditBatch', () => {
  it('writes the entries of one turn in one write, in order, and settles each only once it is on disk', async () => {
    const { log, batch, writes, onDisk } = setup();
    const seenOnDisk: number[] = [];
    const pushed = [1, 2, 3, 4, 5].map((n) => batch.push(call(n)).then((ok) => (seenOnDisk.push(onDisk().length), ok)));
    expect(onDisk()).toEqual([]);
    expect(await Promise.all(pushed)).toEqual([true, true, true, true, true]);
    // Every answer released saw all five entries on disk already.
    expect(seenOnDisk).toEqual([5, 5, 5, 5, 5]);
    expect(writes).toEqual([5]);
    expect(batch.size).toBe(0);
    const entries = log.read();
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(onDisk()).toEqual(['call 1', 'call 2', 'call 3', 'call 4', 'call 5']);
    expect(log.verify()).toEqual({ ok: true, entries: 5, problems: [] });
  });

  it('holds no synchronous file I/O: the file is looked at and written asynchronously', async () => {
    const { batch, onDisk } = setup();
    await batch.push(call(1)); // the first write opens the file (and the folders of its path)
    const kept = openDescriptors();
    const sync = ['writeSync', 'statSync', 'lstatSync', 'openSync', 'readSync', 'existsSync', 'appendFileSync', 'realpathSync'] as const;
    const spies = sync.map((name) => vi.spyOn(fs, name));
    // fstat of a descriptor kept open reads its inode in memory: no path lookup, nothing from the disk.
    const fstat = vi.spyOn(fs, 'fstatSync');
    expect(await Promise.all([batch.push(call(2)), batch.push(call(3))])).toEqual([true, true]);
    expect(await batch.push(call(4))).toBe(true);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    for (const [fd] of fstat.mock.calls) expect(kept).toContain(fd);
    vi.restoreAllMocks();
    expect(onDisk()).toEqual(['call 1', 'call 2', 'call 3', 'call 4']);
  });

  it('once the folders of its path vouch for the file, writes without any look at the path', async () => {
    const { batch, onDisk } = setup();
    let n = 0;
    const push = () => batch.push(call(++n));
    await push();
    expect(await withoutLooks(push)).toBe(true);
    const looks = [vi.spyOn(fs, 'stat'), vi.spyOn(fs, 'statSync'), vi.spyOn(fs, 'lstat'), vi.spyOn(fs, 'lstatSync')];
    expect(await Promise.all([push(), push()])).toEqual([true, true]);
    batch.expect();
    expect(await push()).toBe(true);
    const calls = looks.map((spy) => spy.mock.calls.length);
    vi.restoreAllMocks();
    // Unless another process changed the shared temp folder meanwhile (then a look is right), none was taken.
    if (!foldersMoved()) expect(calls).toEqual([0, 0, 0, 0]);
    expect(onDisk()).toEqual(Array.from({ length: n }, (_, i) => `call ${i + 1}`));
  });

  it('notices just before a write a log replaced, moved away, appended to by another writer, or its folder moved', async () => {
    // Each time the folders vouch for the file first (a write without a look at the path), and the change comes right before the write.
    const { dir, log, batch, onDisk } = setup();
    let n = 0;
    const push = () => batch.push(call(++n));
    await push();
    const messages = (file: string) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { arguments: { message: string } }).arguments.message);

    // Replaced: a copy with one more entry (another writer's) renamed over it. The chain goes on from that entry.
    expect(await withoutLooks(push)).toBe(true);
    let before = onDisk();
    const copyDir = tempDir();
    fs.copyFileSync(log.path, path.join(copyDir, 'audit.jsonl'));
    const other = AuditLog.open(copyDir).log;
    other.append({ ...call(0), arguments: { message: 'other' } });
    other.close();
    fs.renameSync(path.join(copyDir, 'audit.jsonl'), log.path);
    expect(await push()).toBe(true);
    expect(onDisk()).toEqual([...before, 'other', `call ${n}`]);
    expect(log.verify()).toMatchObject({ ok: true, entries: before.length + 2 });

    // Another writer appended to the same file: the chain goes on from its entry.
    expect(await withoutLooks(push)).toBe(true);
    before = onDisk();
    const second = AuditLog.open(dir).log;
    second.append({ ...call(0), arguments: { message: 'second' } });
    second.close();
    expect(await push()).toBe(true);
    expect(onDisk()).toEqual([...before, 'second', `call ${n}`]);
    expect(log.verify()).toMatchObject({ ok: true, entries: before.length + 2 });

    // Moved away: the entry goes to a new log at the path, never into the file moved aside.
    expect(await withoutLooks(push)).toBe(true);
    fs.renameSync(log.path, path.join(dir, 'moved-aside.jsonl'));
    expect(await push()).toBe(true);
    expect(onDisk()).toEqual([`call ${n}`]);
    expect(messages(path.join(dir, 'moved-aside.jsonl')).at(-1)).toBe(`call ${n - 1}`);

    // Its folder moved away and another made in its place.
    expect(await withoutLooks(push)).toBe(true);
    fs.renameSync(dir, `${dir}-moved`);
    temps.push(`${dir}-moved`);
    fs.mkdirSync(dir);
    expect(await push()).toBe(true);
    expect(onDisk()).toEqual([`call ${n}`]);
    expect(messages(path.join(`${dir}-moved`, 'audit.jsonl')).at(-1)).toBe(`call ${n - 1}`);
  });

  it('notices a log made read-only (chmod) before a write: it opens it again, as a fresh open would', async () => {
    const { log, batch, onDisk } = setup();
    let n = 0;
    const push = () => batch.push(call(++n));
    await push();
    expect(await withoutLooks(push)).toBe(true);
    const before = onDisk();
    fs.chmodSync(log.path, 0o400);
    undo.push(() => fs.chmodSync(log.path, 0o600));
    const open = vi.spyOn(fs, 'openSync');
    // Root may still open it for writing (chmod does not bind root); anyone else is refused here.
    const written = await push();
    expect(open.mock.calls.some(([file]) => file === log.path)).toBe(true);
    vi.restoreAllMocks();
    expect(written).toBe(process.getuid?.() === 0);
    expect(onDisk()).toEqual(written ? [...before, `call ${n}`] : before);
  });

  it('forms the next batch while a write is in flight, and writes it once that one is done', async () => {
    let later: Array<Promise<boolean>> = [];
    const { log, batch, writes, onDisk } = setup({
      afterWrite: () => {
        if (writes.length === 1) later = [batch.push(call(2)), batch.push(call(3))];
      },
    });
    const first = batch.push(call(1));
    expect(await first).toBe(true);
    expect(await Promise.all(later)).toEqual([true, true]);
    expect(writes).toEqual([1, 2]);
    expect(onDisk()).toEqual(['call 1', 'call 2', 'call 3']);
    expect(log.verify()).toEqual({ ok: true, entries: 3, problems: [] });
  });

  it('is flushed by a read, queued or in flight, so the log never looks behind to its own process', async () => {
    let inFlight: string[] | undefined;
    const { log, batch, onDisk } = setup({ afterWrite: () => (inFlight ??= log.read().map((e) => (e.arguments as { message: string }).message)) });
    const a = batch.push(call(1));
    const b = batch.push(call(2));
    // Queued, not yet handed to the log: a read writes them first.
    expect(log.read().map((e) => e.seq)).toEqual([1, 2]);
    expect(onDisk()).toEqual(['call 1', 'call 2']);
    expect(await Promise.all([a, b])).toEqual([true, true]);
    // In flight: a read finishes the write first.
    expect(await batch.push(call(3))).toBe(true);
    expect(inFlight).toEqual(['call 1', 'call 2', 'call 3']);
    expect(log.verify()).toEqual({ ok: true, entries: 3, problems: [] });
  });

  it('keeps order and the chain when another entry is appended directly while a write is in flight', async () => {
    let changed = false;
    const { log, guard, batch, onDisk } = setup({
      // The threads of the pool are busy: the write is surely still in flight when the change comes.
      beforeWrite: () => void occupyThreadPool(),
      afterWrite: () => {
        if (changed) return;
        changed = true;
        guard.append([{ ...call(2), arguments: { message: 'change' }, tool: 'change' }]);
      },
    });
    const first = batch.push(call(1));
    expect(await first).toBe(true);
    expect(await batch.push(call(3))).toBe(true);
    await occupyThreadPool(); // the pool's queue drained: the first write landed twice, in the same place
    expect(onDisk()).toEqual(['call 1', 'change', 'call 3']);
    expect(log.read().map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(log.verify()).toEqual({ ok: true, entries: 3, problems: [] });
  });

  it('writes a long queue in batches of at most MAX_BATCH_ENTRIES', async () => {
    const { batch, writes, onDisk } = setup();
    const all = Array.from({ length: MAX_BATCH_ENTRIES + 10 }, (_, i) => batch.push(call(i + 1)));
    expect((await Promise.all(all)).every(Boolean)).toBe(true);
    expect(writes).toEqual([MAX_BATCH_ENTRIES, 10]);
    expect(onDisk()).toHaveLength(MAX_BATCH_ENTRIES + 10);
  });

  it('says which entries the log did not take: their answers must not claim a written entry, and new calls are refused', async () => {
    const { log, guard, batch, onDisk } = setup();
    expect(await batch.push(call(1))).toBe(true);
    const restore = makeFileUnwritable(log.path);
    const lost = [batch.push(call(2)), batch.push(call(3))];
    expect(await Promise.all(lost)).toEqual([false, false]);
    expect(guard.refusal()).toMatch(/cannot write its audit log/);
    expect(guard.unlogged().map((e) => (e.arguments as { message: string }).message)).toEqual(['call 2', 'call 3']);
    restore();
    guard.append([]);
    expect(guard.refusal()).toBeUndefined();
    expect(onDisk()).toEqual(['call 1', 'call 2', 'call 3']);
    expect(log.verify()).toMatchObject({ ok: true, entries: 3 });
  });

  it('a write in flight that cannot be finished when another append comes: both kept, in order, nothing claimed', async () => {
    let armed = false;
    let pool: Promise<void> | undefined;
    let restore: (() => void) | undefined;
    const { log, guard, batch, onDisk } = setup({
      beforeWrite: () => void (armed && (pool ??= occupyThreadPool())),
      afterWrite: () => {
        if (!armed || restore) return;
        // The disk refuses now, before the write in flight ran: the change must finish it first, and cannot.
        restore = makeFileUnwritable(log.path);
        expect(guard.append([{ ...call(3), arguments: { message: 'change' }, tool: 'change' }])).toEqual([]);
      },
    });
    expect(await batch.push(call(1))).toBe(true);
    armed = true;
    const inFlight = batch.push(call(2));
    expect(await inFlight).toBe(false);
    await pool; // the write in flight has run too (refused) before the disk takes writes again
    await new Promise((r) => setImmediate(r));
    expect(guard.unlogged().map((e) => (e.arguments as { message: string }).message)).toEqual(['call 2', 'change']);
    expect(guard.refusal()).toMatch(/cannot write its audit log/);
    restore!();
    guard.append([]);
    expect(onDisk()).toEqual(['call 1', 'call 2', 'change']);
    expect(log.verify()).toMatchObject({ ok: true, entries: 3 });
  });

  it('writes entries nobody waits on within a few ms, together, and with the next waited entry in order', async () => {
    const { log, batch, writes, onDisk } = setup();
    batch.later(call(1));
    batch.later(call(2));
    await new Promise((r) => setImmediate(r));
    // No answer waits on them: they wait a little for company instead of taking a write each.
    expect(onDisk()).toEqual([]);
    await new Promise((r) => setTimeout(r, LATER_MS + 20));
    expect(onDisk()).toEqual(['call 1', 'call 2']);
    expect(writes).toEqual([2]);
    batch.later(call(3));
    const waited = batch.push(call(4));
    // An answer held for its entry does not wait for the timer, and takes the earlier entry along, in order.
    expect(await waited).toBe(true);
    expect(writes).toEqual([2, 2]);
    expect(log.read().map((e) => (e.arguments as { message: string }).message)).toEqual(['call 1', 'call 2', 'call 3', 'call 4']);
    expect(log.verify().ok).toBe(true);
  });

  it('writes entries nobody waits on without waiting when a batch is full, and on a read', async () => {
    const { log, batch, writes, looks, onDisk } = setup();
    for (let n = 1; n < MAX_BATCH_ENTRIES; n++) batch.later(call(n));
    expect(looks.count).toBe(0);
    batch.later(call(MAX_BATCH_ENTRIES));
    // Full: its write begins now (the look at the file comes first), not when the timer fires.
    expect(looks.count).toBe(1);
    await batch.push(call(MAX_BATCH_ENTRIES + 1));
    expect(writes).toEqual([MAX_BATCH_ENTRIES, 1]);
    expect(onDisk()).toHaveLength(MAX_BATCH_ENTRIES + 1);
    batch.later(call(MAX_BATCH_ENTRIES + 2));
    expect(log.read()).toHaveLength(MAX_BATCH_ENTRIES + 2);
  });

  it('uses a look taken ahead (expect) when it is fresh, and looks again when something was written since', async () => {
    const { log, batch, writes, looks, onDisk } = setup();
    expect(await batch.push(call(1))).toBe(true);
    expect(looks.count).toBe(1);
    batch.expect();
    expect(looks.count).toBe(2);
    await new Promise((r) => setTimeout(r, 5));
    expect(await batch.push(call(2))).toBe(true);
    expect(looks.count).toBe(2); // the write went on the look taken ahead
    batch.expect();
    await new Promise((r) => setTimeout(r, 5));
    log.append({ ...call(3), tool: 'change' }); // written since that look: it no longer tells the file
    expect(await batch.push(call(4))).toBe(true);
    expect(looks.count).toBe(4);
    expect(writes).toEqual([1, 1, 1]);
    expect(onDisk()).toEqual(['call 1', 'call 2', 'call 3', 'call 4']);
    expect(log.verify()).toMatchObject({ ok: true, entries: 4 });
  });

  it('settles false, never true, when the writer itself throws', async () => {
    const batch = new AuditBatch({
      prepare: () => Promise.resolve(),
      write: () => Promise.reject(new Error('broken writer')),
      writeNow: () => {
        throw new Error('broken writer');
      },
    });
    expect(await batch.push(call(1))).toBe(false);
    const queued = batch.push(call(2));
    batch.flush();
    expect(await queued).toBe(false);
  });
});
