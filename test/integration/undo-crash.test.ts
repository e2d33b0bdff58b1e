// Crash ordering: the snapshot is on disk before the call is forwarded. A broker killed (SIGKILL)
// between the two forwarded nothing and kept the snapshot; one killed after the call ran can undo it
// once restarted. The pause is a test hook the broker announces on stderr (an event, not a sleep).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { UndoableCall } from '../../shared/undo.js';
import { GrantSeal } from '../../electron/broker/store/grant-seal.js';
import { SnapshotIndex } from '../../electron/broker/undo/snapshot-index.js';
import { removeDir, undoWorld, type UndoWorld } from '../helpers/undo-world.js';

async function kill9(w: UndoWorld): Promise<void> {
  const exited = new Promise((r) => w.broker.child.once('exit', r));
  w.broker.child.kill('SIGKILL');
  await exited;
  await w.client.close().catch(() => undefined);
}

describe('undo crash ordering', () => {
  it('kill -9 between snapshot and forward: nothing forwarded, the snapshot kept; kill -9 after forward: undo works after restart', async () => {
    const first = await undoWorld({ env: { COUNTERSIGN_TEST_PAUSE_AFTER_SNAPSHOT: '1' } });
    const { root, dataDir, files } = first;
    const a = join(files, 'a.txt');
    const b = join(files, 'b.txt');
    writeFileSync(a, 'before');
    try {
      const call = first.client.callTool({ name: 'write_file', arguments: { path: a, content: 'never written' } }).catch((e: Error) => e);
      const card = await first.broker.waitForPending((c) => c.tool === 'write_file');
      await first.broker.api('decide', card.id, { kind: 'allow-once' });
      const said = await first.broker.stderrWhen(/snapshot ([0-9a-f]{16}) kept, holding the call/);
      const id = /snapshot ([0-9a-f]{16}) kept/.exec(said)![1]!;
      await kill9(first);
      await call;
      // Nothing reached the server; the sealed snapshot of the file as it was is on disk.
      expect(readFileSync(a, 'utf8')).toBe('before');
      const index = new SnapshotIndex(join(dataDir, 'snapshots'), () => GrantSeal.open(dataDir, process.env, () => undefined).derivedKey('undo-index'));
      const { records, forged } = index.read();
      expect(forged).toEqual([]);
      expect(records).toEqual([expect.objectContaining({ type: 'before', id, tool: 'write_file', files: [expect.objectContaining({ path: a })] })]);

      // Restarted: the snapshot is listed; nothing to put back for it (the file is as it was).
      const second = await undoWorld({ dataDir, root });
      try {
        const listed = await second.broker.api<UndoableCall[]>('listUndoable');
        expect(listed.map((c) => c.snapshot)).toEqual([id]);
        expect((await second.preview({ snapshot: id })).files.map((f) => f.action)).toEqual(['unchanged']);
        // A call that ran and whose end was recorded (listUndoable waits for that); then the broker dies.
        await second.run('write_file', { path: b, content: 'written' });
        expect(readFileSync(b, 'utf8')).toBe('written');
        expect((await second.broker.api<UndoableCall[]>('listUndoable')).length).toBe(2);
        await kill9(second);
      } finally {
        await second.close();
      }
      const third = await undoWorld({ dataDir, root });
      try {
        const listed = await third.broker.api<UndoableCall[]>('listUndoable');
        const snap = listed.find((c) => c.files.some((f) => f.path === b))!;
        await third.undo({ snapshot: snap.snapshot });
        expect(existsSync(b)).toBe(false);
        expect(readFileSync(a, 'utf8')).toBe('before');
      } finally {
        await third.close();
      }
    } finally {
      await first.close();
      removeDir(root);
    }
  });
});
