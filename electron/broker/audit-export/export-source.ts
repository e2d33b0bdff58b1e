// The audit log as the export reads it: the log's own follower (audit/audit-follow.ts), from a cursor,
// reading only what was appended since its last look (whole files only when it starts or resumes).
import type { AuditEntry } from '../../../shared/api.js';
import { followLog } from '../audit/audit-follow.js';
import { lastOnDisk, logFiles } from '../audit/audit-rotation.js';
import type { EntrySource } from './export-pipe.js';

export function logSource(dir: string, current: string): EntrySource {
  return {
    start: (afterSeq: number, onEntry: (entry: AuditEntry) => void) => followLog(dir, current, onEntry, { afterSeq, unref: true }),
    lastSeq: () => {
      try {
        return lastOnDisk(logFiles(dir, current))?.seq ?? 0;
      } catch {
        return 0;
      }
    },
  };
}
