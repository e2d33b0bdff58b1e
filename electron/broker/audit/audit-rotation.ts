// The audit log's files in its folder: the current one, and the ones rotated away by size, named for
// the first seq they hold (audit-<seq, 12 digits>[-n].jsonl) so that listing them orders the chain.
import fs from 'node:fs';
import path from 'node:path';
import type { AuditEntry } from '../../../shared/api.js';
import { entriesOf, firstEntryOf, lastEntryOf } from './audit-files.js';

/** The file appended to. */
export const CURRENT = 'audit.jsonl';
const ROTATED = /^audit-(\d{12})(?:-(\d+))?\.jsonl$/;

/** Rotated files, oldest first. */
export function rotatedFiles(dir: string): string[] {
  const found: { name: string; seq: number; n: number }[] = [];
  // A data folder that vanished holds no rotated files (the next append makes it again: audit-guard.ts).
  for (const name of readdirOrEmpty(dir)) {
    const m = ROTATED.exec(name);
    if (m) found.push({ name, seq: Number(m[1]), n: Number(m[2] ?? 0) });
  }
  found.sort((a, b) => a.seq - b.seq || a.n - b.n);
  return found.map((f) => path.join(dir, f.name));
}

/** Every file of the log, oldest first: the rotated ones, then `current` when it exists. */
export function logFiles(dir: string, current: string): string[] {
  const files = rotatedFiles(dir);
  return fs.existsSync(current) ? [...files, current] : files;
}

/** The rotated files that may hold entries after `seq`: from the one that holds seq + 1. */
export function rotatedFrom(rotated: string[], seq: number): string[] {
  let start = 0;
  rotated.forEach((file, i) => {
    if (Number(ROTATED.exec(path.basename(file))?.[1]) <= seq + 1) start = i;
  });
  return rotated.slice(start);
}

/** Entries after `seq` in rotated files, starting with the file that holds seq + 1. */
export function rotatedSince(rotated: string[], seq: number): AuditEntry[] {
  return rotatedFrom(rotated, seq).flatMap((file) => entriesOf(file).filter((e) => e.seq > seq));
}

/** The last entry of the newest of `files` (oldest first) that holds one. */
export function lastOnDisk(files: string[]): AuditEntry | undefined {
  for (const file of [...files].reverse()) {
    const { entry } = lastEntryOf(file);
    if (entry) return entry;
  }
  return undefined;
}

/**
 * Renames `current` away, named for its first seq (`firstSeq` when the writer knows it, else read
 * from the file, else `nextSeq`). Never overwrites an earlier file, whatever happened to the names.
 */
export function rotateAway(dir: string, current: string, firstSeq: number | undefined, nextSeq: number): void {
  const first = firstSeq ?? firstEntryOf(current)?.seq ?? nextSeq;
  const stem = `audit-${String(first).padStart(12, '0')}`;
  let target = path.join(dir, `${stem}.jsonl`);
  for (let n = 1; fs.existsSync(target); n++) target = path.join(dir, `${stem}-${n}.jsonl`);
  fs.renameSync(current, target);
}

/** Runs a read over the file list again if a rotation changed it meanwhile. */
export function stable<T>(list: () => string[], run: (files: string[]) => T): T {
  for (let attempt = 0; ; attempt++) {
    const before = list();
    const result = run(before);
    if (attempt >= 3 || list().join('\n') === before.join('\n')) return result;
  }
}

function readdirOrEmpty(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
