// The snapshot store's bounds, with a fake clock: snapshots past the age limit go, then the oldest until
// the store is under its size limit, their blobs with them, and the log says so. A file over the
// single-file limit is not kept (the card says so before the person decides, and undo leaves it).
import { existsSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Settings } from '../../shared/api.js';
import { undoAvailability, undoText } from '../../shared/undo.js';
import type { Change } from '../../electron/broker/audit/change-entry.js';
import { protectedPaths } from '../../electron/broker/checks/protected-paths.js';
import { findProtected, scopeFor } from '../../electron/broker/checks/self-protection.js';
import { UndoService } from '../../electron/broker/undo/undo-service.js';
import { removeDir } from '../helpers/broker-harness.js';

const DAY = 86_400_000;
let root: string;
let changes: Change[];
let settings: Settings;

function service(): UndoService {
  return new UndoService({
    dataDir: join(root, 'data'),
    keyOf: () => Buffer.alloc(32, 7),
    settings: () => settings,
    record: (c) => changes.push(c),
    entries: async () => [],
  });
}

const call = (path: string) => ({ server: 'fs', tool: 'write_file', arguments: { path, content: 'x' }, clientKey: 'k', session: 's1' });
const blobCount = (): number =>
  existsSync(join(root, 'data', 'snapshots', 'blobs'))
    ? readdirSync(join(root, 'data', 'snapshots', 'blobs'))
        .filter((d) => !d.startsWith('.'))
        .flatMap((d) => readdirSync(join(root, 'data', 'snapshots', 'blobs', d))).length
    : 0;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-undo-bounds-')));
  changes = [];
  settings = { approvalTimeoutSeconds: 120, upstreamTimeoutSeconds: 300, theme: 'system' };
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  removeDir(root);
});

describe('undo bounds', () => {
  it('age: a snapshot older than the limit is pruned with its blob, and the log says so', async () => {
    const undo = service();
    const t0 = Date.parse('2026-11-01T10:00:00Z');
    vi.setSystemTime(t0);
    writeFileSync(join(root, 'old.txt'), 'old bytes');
    const old = await undo.beforeForward(call(join(root, 'old.txt')));
    vi.setSystemTime(t0 + 29 * DAY);
    writeFileSync(join(root, 'new.txt'), 'new bytes');
    const fresh = await undo.beforeForward(call(join(root, 'new.txt')));
    expect(blobCount()).toBe(2);
    expect((await undo.prune(t0 + 30 * DAY + 1)).calls).toBe(1);
    expect((await undo.list()).map((c) => c.snapshot)).toEqual([fresh.snapshot]);
    expect(blobCount()).toBe(1);
    expect(changes.at(-1)?.what).toMatch(/Undo snapshots pruned, oldest first: 1 call\(s\) \(1 older than the age limit, 0 over the size limit\)/);
    expect(old.snapshot).not.toBe(fresh.snapshot);
    // Settings change the limit: 10 days now prunes the other.
    settings = { ...settings, undoMaxDays: 10 };
    expect((await undo.prune(t0 + 40 * DAY)).byAge).toBe(1);
    expect(await undo.list()).toEqual([]);
  });

  it('size: the oldest go first until the store is under its limit; the same bytes are kept once', async () => {
    settings = { ...settings, undoMaxMB: 1 };
    const undo = service();
    vi.setSystemTime(Date.parse('2026-12-01T00:00:00Z'));
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      writeFileSync(join(root, name), Buffer.alloc(400_000, name));
      ids.push((await undo.beforeForward(call(join(root, name)))).snapshot!);
      vi.advanceTimersByTime(1000);
    }
    // The same content again: a second record, no second blob.
    writeFileSync(join(root, 'a2'), Buffer.alloc(400_000, 'c'));
    ids.push((await undo.beforeForward(call(join(root, 'a2')))).snapshot!);
    // The store grew past its limit: it pruned itself, the oldest first, and logged it.
    await undo.idle();
    expect((await undo.list()).map((c) => c.snapshot)).toEqual([ids[3], ids[2], ids[1]]);
    expect(blobCount()).toBe(2); // c and a2 share one blob
    expect(changes.map((c) => c.what)).toEqual([
      expect.stringMatching(/pruned, oldest first: 1 call\(s\) \(0 older than the age limit, 1 over the size limit\)/),
    ]);
    expect(await undo.prune()).toMatchObject({ calls: 0, storeBytes: 800_000 });
  });

  it('a file over the single-file limit: the card says so, its content is not kept, undo leaves it', async () => {
    settings = { ...settings, undoMaxFileMB: 1 };
    const undo = service();
    const big = join(root, 'big.bin');
    writeFileSync(big, Buffer.alloc(1_500_000, 1));
    const args = { path: big, content: 'small' };
    const availability = undoAvailability('write_file', args, [{ key: 'path', path: big, role: 'write', exists: true, bytes: 1_500_000 }], 1e6);
    expect(availability).toEqual({ kind: 'too-large', paths: [big], limitBytes: 1e6 });
    expect(undoText(availability)).toBe(`Undo partial: ${big} is over the 1 MB limit, so its content is not kept`);
    const kept = await undo.beforeForward({ ...call(big), arguments: args });
    expect(blobCount()).toBe(0);
    writeFileSync(big, 'small');
    await kept.settle('ok');
    expect((await undo.list())[0]?.partial).toBe(true);
    const p = await undo.preview({ snapshot: kept.snapshot! });
    expect(p.files[0]).toMatchObject({ action: 'restore', blocked: 'Its content was over the size limit, so it was not kept.' });
  });

  it('the store is a protected path: a call naming it, by any spelling, is flagged', () => {
    const dataDir = join(root, 'data');
    const paths = protectedPaths({ dataDir, where: { home: root, platform: 'linux', env: {} } as never, more: [] });
    expect(paths).toContainEqual({ path: join(dataDir, 'snapshots'), what: "Countersign's undo snapshots" });
    const scope = scopeFor(paths, root);
    for (const spelling of [join(dataDir, 'snapshots', 'index.jsonl'), `${root}/data/./snapshots/../snapshots/blobs/ab/x`]) {
      expect(findProtected({ path: spelling, content: '{}' }, scope).length).toBeGreaterThan(0);
    }
  });
});
