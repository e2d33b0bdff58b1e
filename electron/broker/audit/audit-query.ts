// Audit log queries that never hold the event loop for long: each file is read from its end in chunks,
// newest entries first, with a yield whenever a slice of work has run for SLICE_MS. A query with a limit
// (the Activity screen asks for 200) reads only as far back as it needs, not the whole log.
import { open, type FileHandle } from 'node:fs/promises';
import type { AuditEntry, LogQuery } from '../../../shared/api.js';
import { logLimit, logMatcher } from '../../../shared/log-query.js';
import { yielder } from '../core/yielder.js';
import { parseEntry } from './audit-entry.js';

const CHUNK_BYTES = 128 * 1024;
const SLICE_MS = 8;
const NEWLINE = 0x0a;

export interface QueryOptions {
  chunkBytes?: number;
  sliceMs?: number;
}

/**
 * The entries of `files` (oldest file first, as the log lists them) that match `query`, oldest first;
 * with a limit, the newest `limit` of them. Files are opened up front: one rotated away meanwhile is
 * still read whole (a rename keeps it open), and what is appended after the start is not included.
 */
export async function queryFiles(files: string[], query: LogQuery, opts: QueryOptions = {}): Promise<AuditEntry[]> {
  const matches = logMatcher(query);
  const limit = logLimit(query);
  const chunkBytes = opts.chunkBytes ?? CHUNK_BYTES;
  const pause = yielder(opts.sliceMs ?? SLICE_MS);
  if (limit === 0) return [];
  const handles: Array<{ fh: FileHandle; size: number }> = [];
  try {
    for (const file of files) {
      try {
        const fh = await open(file, 'r');
        handles.push({ fh, size: (await fh.stat()).size });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    const newestFirst: AuditEntry[] = [];
    for (const { fh, size } of handles.reverse()) {
      let pos = size;
      // Bytes of a line that began in a chunk not read yet (the one before).
      let carry: Buffer = Buffer.alloc(0);
      while (pos > 0) {
        const start = Math.max(0, pos - chunkBytes);
        const block = Buffer.allocUnsafe(pos - start);
        const { bytesRead } = await fh.read(block, 0, block.length, start);
        const text = bytesRead === block.length ? Buffer.concat([block, carry]) : Buffer.concat([block.subarray(0, bytesRead), carry]);
        pos = start;
        // Unless this chunk starts the file, its first line may have begun earlier: keep it for later.
        const first = start > 0 ? text.indexOf(NEWLINE) : -1;
        carry = first === -1 && start > 0 ? text : text.subarray(0, first + 1);
        const body = start > 0 ? (first === -1 ? '' : text.toString('utf8', first + 1)) : text.toString('utf8');
        if (start === 0) carry = Buffer.alloc(0);
        const lines = body.split('\n');
        for (let i = lines.length - 1; i >= 0; i--) {
          const line = lines[i]!;
          if (!line) continue;
          if ((i & 255) === 0) await pause();
          const entry = parseEntry(line);
          if (entry && matches(entry)) {
            newestFirst.push(entry);
            if (limit !== undefined && newestFirst.length >= limit) return newestFirst.reverse();
          }
        }
        await pause();
      }
    }
    return newestFirst.reverse();
  } finally {
    await Promise.allSettled(handles.map((h) => h.fh.close()));
  }
}
