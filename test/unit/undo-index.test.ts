// The sealed snapshot index: its own appends are read back without verifying the file again, but any
// other write (even one that keeps the size and the mtime) is verified on the next read.
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotIndex, type IndexRecord } from '../../electron/broker/undo/snapshot-index.js';
import { removeDir } from '../helpers/broker-harness.js';

const rec = (id: string, path: string): IndexRecord => ({
  type: 'before',
  id,
  time: '2026-12-04T10:00:00.000Z',
  server: 'fs',
  tool: 'write_file',
  files: [{ path, real: path, role: 'write', state: { kind: 'missing' } }],
});

describe('snapshot index', () => {
  it('verifies a hand edit made after a cached read, even one that keeps size and mtime', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-undo-index-'));
    try {
      const index = new SnapshotIndex(dir, () => Buffer.alloc(32, 3));
      await index.append(rec('aaaaaaaaaaaaaaaa', '/home/p/a.txt'));
      expect(index.read().records).toHaveLength(1);
      await index.append(rec('bbbbbbbbbbbbbbbb', '/home/p/b.txt'));
      expect(index.read().records.map((r) => (r.type === 'before' ? r.id : ''))).toEqual(['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb']);
      // Same length, same mtime: only the path changes (what a forger would want).
      const file = join(dir, 'index.jsonl');
      const { mtime, atime } = statSync(file);
      writeFileSync(file, readFileSync(file, 'utf8').replace('/home/p/b.txt', '/home/p/x.txt'));
      utimesSync(file, atime, mtime);
      const read = index.read();
      expect(read.records.map((r) => (r.type === 'before' ? r.id : ''))).toEqual(['aaaaaaaaaaaaaaaa']);
      expect(read.forged).toEqual([{ line: 2, id: 'bbbbbbbbbbbbbbbb' }]);
      // Another key (another data dir's, or none) verifies nothing.
      expect(new SnapshotIndex(dir, () => Buffer.alloc(32, 4)).read().records).toEqual([]);
    } finally {
      removeDir(dir);
    }
  });
});
