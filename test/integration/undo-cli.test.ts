// `countersign undo` against a running broker, without a terminal: the list, the preview with its hash,
// nothing written without --yes and that hash, and a conflict needs --confirm-conflicts as well.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-run.js';
import { removeDir, undoWorld, type UndoWorld } from '../helpers/undo-world.js';

let world: UndoWorld | undefined;
afterEach(async () => {
  if (world) {
    await world.close();
    removeDir(world.root);
    world = undefined;
  }
});

describe('countersign undo', () => {
  it('lists, previews, and undoes only with --yes and the printed hash', async () => {
    const w = (world = await undoWorld());
    const a = join(w.files, 'a.txt');
    writeFileSync(a, 'before');
    const { entry } = await w.run('write_file', { path: a, content: 'after' });
    const list = await runCli(w.dataDir, 'undo', '--list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`#${entry.seq}`);
    expect(list.stdout).toMatch(/write_file on fs by countersign-test {2}\[undoable\]/);
    expect(list.stdout).toContain(`write  ${a}`);

    const bare = await runCli(w.dataDir, 'undo', String(entry.seq));
    expect(bare.code).not.toBe(0);
    expect(bare.stdout).toContain(`${a} becomes 6 B, mode 644`);
    const hash = /preview hash ([0-9a-f]{64})/.exec(bare.stdout)![1]!;
    expect(bare.stderr).toMatch(/there is no terminal to ask you on.*--yes --hash/s);
    expect((await runCli(w.dataDir, 'undo', String(entry.seq), '--yes')).stderr).toMatch(/--yes grants only what it names/);
    expect(readFileSync(a, 'utf8')).toBe('after');

    writeFileSync(a, 'edited meanwhile');
    const conflicted = await runCli(w.dataDir, 'undo', String(entry.seq), '--dry-run');
    expect(conflicted.stdout).toMatch(/CONFLICT: .*changed after the call[\s\S]*before the call: 6 B[\s\S]*after it: {8}5 B[\s\S]*now: {13}16 B/);
    const newHash = /preview hash ([0-9a-f]{64})/.exec(conflicted.stdout)![1]!;
    expect(newHash).not.toBe(hash);
    expect((await runCli(w.dataDir, 'undo', String(entry.seq), '--yes', '--hash', hash, '--confirm-conflicts')).code).not.toBe(0);
    expect((await runCli(w.dataDir, 'undo', String(entry.seq), '--yes', '--hash', newHash)).stderr).toMatch(/--confirm-conflicts/);
    expect(readFileSync(a, 'utf8')).toBe('edited meanwhile');
    const done = await runCli(w.dataDir, 'undo', String(entry.seq), '--yes', '--hash', newHash, '--confirm-conflicts');
    expect(done.stdout).toContain(`done  ${a}`);
    expect(done.code).toBe(0);
    expect(readFileSync(a, 'utf8')).toBe('before');
    const log = await w.broker.logWhen({}, (e) => e.some((x) => x.kind === 'undo'));
    expect(log.find((x) => x.kind === 'undo')).toMatchObject({ actor: 'cli' });
  });
});
