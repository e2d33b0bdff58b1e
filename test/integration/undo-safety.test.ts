// What undo refuses, with the real server-filesystem through a real broker: a file changed since the
// call (three versions, and only a confirmed conflict is overwritten), an index entry forged or edited
// by hand, a blob changed on disk, and a symbolic link swapped in after the call.
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UndoResult } from '../../shared/undo.js';
import { removeDir, undoWorld, type UndoWorld } from '../helpers/undo-world.js';

let world: UndoWorld | undefined;
afterEach(async () => {
  if (world) {
    await world.close();
    removeDir(world.root);
    world = undefined;
  }
});

const indexOf = (w: UndoWorld): string => join(w.dataDir, 'snapshots', 'index.jsonl');

describe('undo conflicts', () => {
  it('a file changed since the call: three versions shown, refused until the conflict is confirmed', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'notes.md');
    writeFileSync(a, 'before');
    const { entry } = await w.run('write_file', { path: a, content: 'after' });
    writeFileSync(a, 'the person kept writing');
    const p = await w.preview({ seq: entry.seq });
    expect(p.conflicts).toBe(1);
    const f = p.files[0]!;
    expect([f.becomes.text, f.after?.text, f.now.text]).toEqual(['before', 'after', 'the person kept writing']);
    expect(f.conflict).toMatch(/changed after the call/);
    await expect(w.broker.api('undo', { seq: entry.seq }, p.hash)).rejects.toThrow(/changed since the call; nothing was written/);
    expect(readFileSync(a, 'utf8')).toBe('the person kept writing');
    // A preview hash that is not the one shown: refused.
    await expect(w.broker.api('undo', { seq: entry.seq }, 'f'.repeat(64), { confirmConflicts: true })).rejects.toThrow(/changed after the undo preview/);
    await w.broker.api('undo', { seq: entry.seq }, p.hash, { confirmConflicts: true });
    expect(readFileSync(a, 'utf8')).toBe('before');
  });
});

describe('a forged snapshot writes nothing', () => {
  it('an index entry edited to point at other bytes is refused with a clear error', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'a.txt');
    writeFileSync(a, 'mine');
    const { entry } = await w.run('write_file', { path: a, content: 'agent' });
    // The attacker can add a blob with a valid hash (content-addressed), but not seal an index entry.
    const evil = Buffer.from('attacker content');
    const hash = createHash('sha256').update(evil).digest('hex');
    mkdirSync(join(w.dataDir, 'snapshots', 'blobs', hash.slice(0, 2)), { recursive: true });
    writeFileSync(join(w.dataDir, 'snapshots', 'blobs', hash.slice(0, 2), hash), evil);
    const lines = readFileSync(indexOf(w), 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes(`"id":"${entry.snapshot}"`) && l.includes('"before"'));
    const parsed = JSON.parse(lines[at]!) as { rec: { files: Array<{ state: { hash: string; size: number } }> } };
    parsed.rec.files[0]!.state.hash = hash;
    parsed.rec.files[0]!.state.size = evil.length;
    lines[at] = JSON.stringify(parsed);
    writeFileSync(indexOf(w), lines.join('\n'));
    await expect(w.preview({ seq: entry.seq })).rejects.toThrow(/not sealed by Countersign: its index entry was written or edited outside Countersign/);
    expect(readFileSync(a, 'utf8')).toBe('agent');
  });

  it('a whole entry appended by hand is refused; a blob changed on disk is refused before anything is written', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'a.txt');
    const b = join(w.files, 'b.txt');
    writeFileSync(a, 'A');
    writeFileSync(b, 'B');
    await w.run('write_file', { path: a, content: 'A2' });
    await w.run('write_file', { path: b, content: 'B2' });
    const forgedId = '0123456789abcdef';
    const rec = { type: 'before', id: forgedId, time: new Date().toISOString(), server: 'fs', tool: 'write_file', files: [] };
    appendFileSync(indexOf(w), JSON.stringify({ v: 1, rec, tag: 'a'.repeat(64) }) + '\n');
    await expect(w.preview({ snapshot: forgedId })).rejects.toThrow(/not sealed by Countersign/);
    // The session preview ignores the forged line.
    const p = await w.preview({ server: 'fs' });
    expect(p.files.map((f) => f.path).sort()).toEqual([a, b]);
    // Tamper with the blob of A's before-state: the undo of both files is refused, neither is written.
    const blobs = join(w.dataDir, 'snapshots', 'blobs');
    const aHash = createHash('sha256').update('A').digest('hex');
    writeFileSync(join(blobs, aHash.slice(0, 2), aHash), 'tampered');
    await expect(w.broker.api('undo', { server: 'fs' }, p.hash)).rejects.toThrow(/was changed on disk since it was kept/);
    expect([readFileSync(a, 'utf8'), readFileSync(b, 'utf8')]).toEqual(['A2', 'B2']);
    expect(readdirSync(w.files).sort()).toEqual(['a.txt', 'b.txt']);
  });
});

describe('undo never follows a symbolic link', () => {
  it('a folder on the path swapped for a link after the call: refused, the link target untouched', async () => {
    const w = (world = await undoWorld());
    const sub = join(w.files, 'sub');
    const elsewhere = join(w.root, 'elsewhere');
    mkdirSync(sub);
    mkdirSync(elsewhere);
    writeFileSync(join(sub, 'a.txt'), 'before');
    const { entry } = await w.run('write_file', { path: join(sub, 'a.txt'), content: 'after' });
    // The agent (or anyone) swaps the folder for a link to a place with the same file name.
    writeFileSync(join(elsewhere, 'a.txt'), 'after');
    renameSync(sub, join(w.files, 'sub-old'));
    symlinkSync(elsewhere, sub);
    const p = await w.preview({ seq: entry.seq });
    expect(p.files[0]!.blocked).toMatch(/sub is now a symbolic link, so undo does not follow it/);
    const res = await w.broker.api<UndoResult>('undo', { seq: entry.seq }, p.hash, { confirmConflicts: true });
    expect(res.files).toEqual([expect.objectContaining({ done: false, error: expect.stringMatching(/symbolic link/) })]);
    expect(readFileSync(join(elsewhere, 'a.txt'), 'utf8')).toBe('after');
    expect(readFileSync(join(w.files, 'sub-old', 'a.txt'), 'utf8')).toBe('after');
  });

  it('the file itself swapped for a link: a conflict; even confirmed, nothing is written through the link', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'a.txt');
    const outside = join(w.root, 'outside.txt');
    writeFileSync(a, 'before');
    writeFileSync(outside, 'do not touch');
    const { entry } = await w.run('write_file', { path: a, content: 'after' });
    renameSync(a, join(w.files, 'gone.txt'));
    symlinkSync(outside, a);
    const p = await w.preview({ seq: entry.seq });
    expect(p.files[0]!.now.state).toEqual({ kind: 'other', what: 'a symbolic link' });
    expect(p.conflicts).toBe(1);
    const res = await w.broker.api<{ files: Array<{ done: boolean; error?: string }> }>('undo', { seq: entry.seq }, p.hash, { confirmConflicts: true });
    expect(readFileSync(outside, 'utf8')).toBe('do not touch');
    expect(res.files[0]!.done).toBe(false);
  });
});
