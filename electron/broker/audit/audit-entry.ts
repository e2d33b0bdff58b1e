// An audit entry's format: one JSON line, hash-chained to the line before. The one definition of how an
// entry is chained and hashed, and of what counts as an entry when a line is read back.
import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';

export type NewAuditEntry = Omit<AuditEntry, 'seq' | 'prev' | 'hash'>;

/** Where a chain ends: the seq and hash of its last entry. */
export interface ChainEnd {
  seq: number;
  hash: string;
}

/** The `prev` of seq 1. */
export const GENESIS = '0'.repeat(64);

/** The entry chained after `last`, and its line. */
export function chainLine(entry: NewAuditEntry, last: ChainEnd): { full: AuditEntry; line: string } {
  const { seq: _seq, prev: _prev, hash: _hash, ...fields } = entry as Partial<AuditEntry>;
  const seq = last.seq + 1;
  // The JSON round trip drops undefined fields, so the hash covers exactly what is written. The line
  // is that same text with the hash added last (what JSON.stringify of the whole entry would write).
  const bodyText = JSON.stringify({ seq, ...fields, prev: last.hash });
  const body = JSON.parse(bodyText) as Omit<AuditEntry, 'hash'>;
  const full: AuditEntry = { ...body, hash: hashEntry(body) };
  return { full, line: `${bodyText.slice(0, -1)},"hash":"${full.hash}"}\n` };
}

/** sha256 over the entry without `hash`, keys sorted at every level so the text is stable (the one canonical JSON). */
export function hashEntry(entry: Omit<AuditEntry, 'hash'> | AuditEntry): string {
  const { hash: _hash, ...body } = entry as AuditEntry;
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/** A parsed line as an entry: an object with a positive integer seq and string prev and hash; else undefined. */
export function asEntry(value: unknown): AuditEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { seq, prev, hash } = value as Record<string, unknown>;
  if (!Number.isInteger(seq) || (seq as number) < 1 || typeof prev !== 'string' || typeof hash !== 'string') {
    return undefined;
  }
  return value as AuditEntry;
}

/** One line of the log as an entry; undefined for anything else (not JSON, not an entry, empty). */
export function parseEntry(line: string): AuditEntry | undefined {
  try {
    return asEntry(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** The entries among the lines of `text`; other lines are skipped. */
export function parseEntries(text: string): AuditEntry[] {
  return text.split('\n').flatMap((line) => parseEntry(line) ?? []);
}
