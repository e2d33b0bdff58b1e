// Tailing the audit log as another process writes it (`countersign log --follow`): entries once each,
// in seq order, across rotations, seen through a watch on the folder and a poll.
import fs from 'node:fs';
import type { AuditEntry } from '../../../shared/api.js';
import { parseEntries } from './audit-entry.js';
import { lastEntryOf, statOrUndefined } from './audit-files.js';
import { lastOnDisk, logFiles, rotatedFiles, rotatedSince } from './audit-rotation.js';

const POLL_MS = 250;

/**
 * Calls `onEntry` for each entry of the log in `dir` whose current file is `current`. Without fromEnd,
 * existing entries come first (those after `afterSeq` only, when given: the audit export's cursor).
 * Keeps the process alive until the returned function is called (`unref`: it does not). `watch: false`
 * reads on the poll alone: nothing runs per append (the audit export, which must not cost a call anything).
 */
export function followLog(
  dir: string,
  current: string,
  onEntry: (e: AuditEntry) => void,
  opts: { fromEnd?: boolean; afterSeq?: number; unref?: boolean; watch?: boolean } = {},
): () => void {
  const state = { lastSeq: opts.afterSeq ?? 0, ino: undefined as number | undefined, offset: 0, rotated: '' };
  if (opts.fromEnd) {
    state.lastSeq = lastOnDisk(logFiles(dir, current))?.seq ?? 0;
    const st = statOrUndefined(current);
    state.rotated = rotatedFiles(dir).join('\n');
    if (st) Object.assign(state, { ino: st.ino, offset: lastEntryOf(current).endsWithNewline ? st.size : 0 });
  }
  let stopped = false;

  const collect = (): AuditEntry[] => {
    let fd: number | undefined;
    try {
      fd = fs.openSync(current, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      const st = fd === undefined ? undefined : fs.fstatSync(fd);
      const out: AuditEntry[] = [];
      let { ino, offset } = state;
      const rotated = rotatedFiles(dir);
      if (!st || st.ino !== ino || st.size < offset) {
        // New, rotated or replaced: whatever we had not read yet is now in a rotated file.
        if (!st && ino === undefined && rotated.join('\n') === state.rotated) return out;
        out.push(...rotatedSince(rotated, state.lastSeq));
        ino = st?.ino;
        offset = 0;
      }
      if (fd !== undefined && st && st.size > offset) {
        const buf = Buffer.alloc(st.size - offset);
        const got = fs.readSync(fd, buf, 0, buf.length, offset);
        const end = buf.subarray(0, got).lastIndexOf(0x0a) + 1; // complete lines only
        out.push(...parseEntries(buf.subarray(0, end).toString('utf8')));
        offset += end;
      }
      Object.assign(state, { ino, offset, rotated: rotated.join('\n') });
      return out;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };

  const poll = () => {
    if (stopped) return;
    let batch: AuditEntry[];
    try {
      batch = collect();
    } catch {
      return; // a rename mid-read: the next poll picks it up
    }
    for (const entry of batch) {
      if (stopped) return;
      if (entry.seq <= state.lastSeq) continue;
      state.lastSeq = entry.seq;
      onEntry(entry);
    }
  };

  let watcher: fs.FSWatcher | undefined;
  if (opts.watch !== false) {
    try {
      // The directory, not the file: rotation renames the file away.
      watcher = fs.watch(dir, () => poll());
      watcher.on('error', () => watcher?.close());
    } catch {
      // Some file systems cannot be watched; polling alone still works.
    }
  }
  const timer = setInterval(poll, POLL_MS);
  if (opts.unref) {
    timer.unref();
    watcher?.unref();
  }
  setImmediate(poll);
  return () => {
    stopped = true;
    clearInterval(timer);
    watcher?.close();
  };
}
