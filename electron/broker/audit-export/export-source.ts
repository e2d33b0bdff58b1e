// The audit log as the export reads it, from a cursor, with the log's own readers. A backlog in rotated
// files is read one file at a time, a tick apart, and the last file read is kept (rotated files never
// change), so a pipe that pauses and resumes mid-file does not parse it again. Then the current file
// through the log's follower (audit/audit-follow.ts), on its poll alone (every 250 ms): nothing runs per
// append, so a call costs the same with the export on, and what a poll finds goes out as one batch.
import type { AuditEntry } from '../../../shared/api.js';
import { entriesOf } from '../audit/audit-files.js';
import { followLog } from '../audit/audit-follow.js';
import { lastOnDisk, logFiles, rotatedFiles, rotatedFrom } from '../audit/audit-rotation.js';
import type { EntrySource } from './export-pipe.js';

export function logSource(dir: string, current: string): EntrySource {
  let kept: { file: string; entries: AuditEntry[] } | undefined;
  const entriesOfRotated = (file: string): AuditEntry[] => {
    if (kept?.file !== file) kept = { file, entries: entriesOf(file) };
    return kept.entries;
  };
  return {
    start(afterSeq, onEntry) {
      let stopped = false;
      let stopFollow: (() => void) | undefined;
      let last = afterSeq;
      let files: string[] = [];
      try {
        files = rotatedFrom(rotatedFiles(dir), afterSeq);
      } catch {
        // The folder cannot be listed now: the follower reads what it can, and rotations it finds.
      }
      const step = (i: number): void => {
        if (stopped) return;
        if (i >= files.length) {
          kept = undefined;
          stopFollow = followLog(dir, current, onEntry, { afterSeq: last, unref: true, watch: false });
          return;
        }
        let entries: AuditEntry[] = [];
        try {
          entries = entriesOfRotated(files[i]!);
        } catch {
          // Renamed meanwhile, or unreadable: the follower's own look at the rotated files covers it.
        }
        for (const entry of entries) {
          if (stopped) return;
          if (entry.seq <= last) continue;
          last = entry.seq;
          onEntry(entry);
        }
        setImmediate(() => step(i + 1)).unref();
      };
      setImmediate(() => step(0)).unref();
      return () => {
        stopped = true;
        stopFollow?.();
      };
    },
    lastSeq: () => {
      try {
        return lastOnDisk(logFiles(dir, current))?.seq ?? 0;
      } catch {
        return 0;
      }
    },
  };
}
