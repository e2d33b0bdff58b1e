// Whole-file reads of the audit log (the CLI's `log` and `verify`): synchronous, over the files as
// listed oldest first. The API's reads, which must not hold the event loop, are in audit-query.ts.
import path from 'node:path';
import type { AuditEntry, LogQuery } from '../../../shared/api.js';
import { logLimit, logMatcher } from '../../../shared/log-query.js';
import { asEntry, GENESIS, hashEntry, type ChainEnd } from './audit-entry.js';
import { entriesOf, readText } from './audit-files.js';

export interface Verification {
  ok: boolean;
  entries: number;
  problems: string[];
}

/** The entries of `files` that match, oldest first. `limit` keeps the newest N matches. */
export function readEntries(files: string[], query: LogQuery): AuditEntry[] {
  const matches = logMatcher(query);
  const limit = logLimit(query);
  const chunks: AuditEntry[][] = [];
  let count = 0;
  // Newest file first, so a small limit does not read the whole history.
  for (const file of [...files].reverse()) {
    if (limit !== undefined && count >= limit) break;
    const found = entriesOf(file).filter(matches);
    chunks.unshift(found);
    count += found.length;
  }
  const all = chunks.flat();
  return limit === undefined ? all : all.slice(Math.max(0, all.length - limit));
}

/** Checks every line of `files`: valid entries, each hash, seq without gaps from 1, and the chain. */
export function verifyFiles(files: string[]): Verification {
  const problems: string[] = [];
  let entries = 0;
  let prev: ChainEnd | undefined;
  for (const file of files) {
    const lines = readText(file).split('\n');
    if (lines.at(-1) === '') lines.pop();
    lines.forEach((line, i) => {
      const where = `${path.basename(file)} line ${i + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        problems.push(`${where} is not valid JSON`);
        return;
      }
      const entry = asEntry(value);
      if (!entry) return void problems.push(`${where} is not an audit entry`);
      entries++;
      if (hashEntry(entry) !== entry.hash) problems.push(`${where}: hash does not match its contents`);
      if (!prev) {
        if (entry.seq !== 1) problems.push(`${where}: the log starts at seq ${entry.seq}; earlier entries are missing`);
        else if (entry.prev !== GENESIS) problems.push(`${where}: chain broken: seq 1 does not start the chain`);
      } else {
        if (entry.seq !== prev.seq + 1) problems.push(`${where}: seq jumps from ${prev.seq} to ${entry.seq}`);
        if (entry.prev !== prev.hash) {
          problems.push(`${where}: chain broken: prev of seq ${entry.seq} does not match seq ${prev.seq}`);
        }
      }
      prev = { seq: entry.seq, hash: entry.hash };
    });
  }
  return { ok: problems.length === 0, entries, problems };
}
