// The audit log as the export reads it: the log's own follower (audit/audit-follow.ts), from a cursor,
// reading only what was appended since its last look (whole files only when it starts or resumes), on
// its poll alone (every 250 ms): nothing runs per append, so a call costs the same with the export on,
// and what a poll finds goes out as one batch.
import type { AuditEntry } from '../../../shared/api.js';
import { followLog } from '../audit/audit-follow.js';
import { lastOnDisk, logFiles } from '../audit/audit-rotation.js';
import type { EntrySource } from './export-pipe.js';

export function logSource(dir: string, current: string): EntrySource {
  return {
    start: (afterSeq: number, onEntry: (entry: AuditEntry) => void) => followLog(dir, current, onEntry, { afterSeq, unref: true, watch: false }),
    lastSeq: () => {
      try {
        return lastOnDisk(logFiles(dir, current))?.seq ?? 0;
      } catch {
        return 0;
      }
    },
  };
}
