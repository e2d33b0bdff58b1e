// Undo with the real server-filesystem through a real broker and `connect` (relay mode): every tool it
// has that writes, edits, moves or creates is undone to exactly the state before it; the undo is
// itself audited and can be undone; a session is undone newest change first.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import type { UndoableCall } from '../../shared/undo.js';
import { removeDir, undoWorld, type UndoWorld } from '../helpers/undo-world.js';

let world: UndoWorld | undefined;
afterEach(async () => {
  if (world) {
    await world.close();
    removeDir(world.root);
    world = undefined;
  }
});

const mode = (p: string): number => statSync(p).mode & 0o777;

describe('undo one call (server-filesystem, relay mode)', () => {
  it('write_file over a file: content and mode back; the card said "Undo available"; the entry names its snapshot', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'a.txt');
    writeFileSync(a, 'original\n');
    chmodSync(a, 0o640);
    const { card, entry, result } = await w.run('write_file', { path: a, content: 'agent wrote this' });
    expect(result.isError).toBeFalsy();
    expect(card.undo).toEqual({ kind: 'available' });
    expect(entry.snapshot).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(a, 'utf8')).toBe('agent wrote this');
    const done = await w.undo({ seq: entry.seq });
    expect(done.files).toEqual([{ path: a, action: 'restore', done: true }]);
    expect(readFileSync(a, 'utf8')).toBe('original\n');
    expect(mode(a)).toBe(0o640);
    // Audited with who did it, naming its own snapshot; and undoable in turn.
    const log = await w.broker.logWhen({}, (e) => e.some((x) => x.kind === 'undo'));
    const undoEntry = log.find((x) => x.kind === 'undo')!;
    expect(undoEntry).toMatchObject({ actor: 'browser', snapshot: done.snapshot });
    await w.undo({ seq: undoEntry.seq });
    expect(readFileSync(a, 'utf8')).toBe('agent wrote this');
  });

  it('write_file of a new file: removed again', async () => {
    const w = (world = await undoWorld());
    const b = join(w.files, 'new.txt');
    const { entry } = await w.run('write_file', { path: b, content: 'fresh' });
    expect(existsSync(b)).toBe(true);
    const p = await w.preview({ seq: entry.seq });
    expect(p.files.map((f) => [f.path, f.action, f.becomes.state.kind, f.now.text])).toEqual([[b, 'remove', 'missing', 'fresh']]);
    await w.undo({ seq: entry.seq });
    expect(existsSync(b)).toBe(false);
  });

  it('edit_file: the text before the edit', async () => {
    const w = (world = await undoWorld());
    const c = join(w.files, 'c.md');
    writeFileSync(c, 'one\ntwo\nthree\n');
    const { entry } = await w.run('edit_file', { path: c, edits: [{ oldText: 'two', newText: 'TWO' }] });
    expect(readFileSync(c, 'utf8')).toBe('one\nTWO\nthree\n');
    await w.undo({ seq: entry.seq });
    expect(readFileSync(c, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('create_directory: the folder removed again (only while empty)', async () => {
    const w = (world = await undoWorld());
    const d = join(w.files, 'made', 'deeper');
    const { entry } = await w.run('create_directory', { path: d });
    expect(statSync(d).isDirectory()).toBe(true);
    await w.undo({ seq: entry.seq });
    expect(existsSync(d)).toBe(false);
    expect(existsSync(join(w.files, 'made'))).toBe(false);
  });

  it('move_file of a file and of a folder: moved back', async () => {
    const w = (world = await undoWorld());
    const from = join(w.files, 'from.txt');
    const to = join(w.files, 'to.txt');
    writeFileSync(from, 'moving');
    chmodSync(from, 0o600);
    const moved = await w.run('move_file', { source: from, destination: to });
    expect(existsSync(from)).toBe(false);
    await w.undo({ seq: moved.entry.seq });
    expect(readFileSync(from, 'utf8')).toBe('moving');
    expect(mode(from)).toBe(0o600);
    expect(existsSync(to)).toBe(false);

    const dir = join(w.files, 'project');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), 'code');
    const dirMove = await w.run('move_file', { source: dir, destination: join(w.files, 'renamed') });
    const p = await w.preview({ seq: dirMove.entry.seq });
    expect(p.files.map((f) => [f.path, f.action])).toEqual([[dir, 'move-back']]);
    await w.undo({ seq: dirMove.entry.seq });
    expect(readFileSync(join(dir, 'src', 'main.ts'), 'utf8')).toBe('code');
    expect(existsSync(join(w.files, 'renamed'))).toBe(false);
  });

  it('a relative path: no snapshot, and the card says "No undo"', async () => {
    const w = (world = await undoWorld());
    const { card, entry } = await w.run('write_file', { path: 'rel.txt', content: 'x' });
    expect(card.undo).toMatchObject({ kind: 'none' });
    expect((card.undo as { why: string }).why).toMatch(/^No undo: Countersign cannot tell which files this changes/);
    expect(entry.snapshot).toBeUndefined();
    await expect(w.undo({ seq: entry.seq })).rejects.toThrow(/has no snapshot/);
  });
});

describe('leases', () => {
  it('under an always-allow rule, every write reaches the broker (no lease) and is snapshotted first', async () => {
    const w = (world = await undoWorld());
    // "Always allow" write_file: an automatic allow, which would otherwise earn `connect` a lease. No call
    // that names files to write gets one (relative path included), so every write is kept first.
    const first = w.client.callTool({ name: 'write_file', arguments: { path: 'rel.txt', content: 'x' } });
    const card = await w.broker.waitForPending((c) => c.tool === 'write_file');
    await w.broker.api('decide', card.id, { kind: 'always-allow' });
    await first;
    const target = join(w.files, 'leased.txt');
    for (let i = 0; i < 5; i++) {
      await w.client.callTool({ name: 'write_file', arguments: { path: 'rel.txt', content: String(i) } });
      await w.client.callTool({ name: 'write_file', arguments: { path: target, content: String(i) } });
    }
    // In relay mode `connect` answers the client, then reports: the entries may come after the answers.
    const atTarget = (e: AuditEntry[]) => e.filter((x) => (x.arguments as { path?: string } | undefined)?.path === target);
    const log = await w.broker.logWhen({ server: 'fs' }, (e) => atTarget(e).length >= 5);
    const absolute = atTarget(log);
    expect(absolute).toHaveLength(5);
    expect(absolute.every((e) => typeof e.snapshot === 'string')).toBe(true);
  });
});

describe('undo a session', () => {
  it('every file the session changed, newest change first, in one preview', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'a.txt');
    const b = join(w.files, 'b.txt');
    writeFileSync(a, 'A0');
    await w.run('write_file', { path: a, content: 'A1' });
    await w.run('edit_file', { path: a, edits: [{ oldText: 'A1', newText: 'A2' }] });
    await w.run('write_file', { path: b, content: 'B1' });
    const last = await w.run('create_directory', { path: join(w.files, 'out') });
    const list = await w.broker.api<UndoableCall[]>('listUndoable');
    expect(list.map((c) => c.tool)).toEqual(['create_directory', 'write_file', 'edit_file', 'write_file']);
    const session = list[0]!.session!;
    expect(list.every((c) => c.session === session && c.seq !== undefined)).toBe(true);
    const since = new Date(Date.parse(list.at(-1)!.time) - 1).toISOString();
    const target = { client: 'countersign-test', since };
    const p = await w.preview(target);
    expect(p.calls.map((c) => c.seq)).toEqual(list.map((c) => c.seq));
    expect(p.files.map((f) => [f.path, f.action, f.snapshots.length])).toEqual([
      [join(w.files, 'out'), 'remove-folder', 1],
      [b, 'remove', 1],
      [a, 'restore', 2],
    ]);
    expect(p.files[2]!.becomes.text).toBe('A0');
    expect(p.conflicts).toBe(0);
    await w.undo(target);
    expect(readFileSync(a, 'utf8')).toBe('A0');
    expect(existsSync(b)).toBe(false);
    expect(existsSync(join(w.files, 'out'))).toBe(false);
    // By session id too: nothing left to undo.
    await expect(w.preview({ session })).rejects.toThrow(/nothing to undo/);
    const entries = await w.broker.api<AuditEntry[]>('queryLog', {});
    expect(entries.find((e) => e.kind === 'undo')?.detail).toMatch(/Undid 4 call\(s\): 3 file\(s\) put back/);
    expect(last.entry.snapshot).toBe(list[0]!.snapshot);
  });
});
