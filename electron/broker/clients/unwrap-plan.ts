// Plans an unwrap of one file. Newest wrap first: when the file is byte for byte what that wrap wrote,
// it goes back to the backup's exact bytes; otherwise only Countersign's entries are reverted (their
// exact text when untouched, else their keys), and an entry the person changed since is left alone.
import type { UnwrapEntryResult, UnwrapFilePlan } from '../../../shared/clients.js';
import type { ClientBackups, EntryRecord, WrapRecord } from './backups.js';
import { applyChangeToValue, isPlainObject, sameValue, verifyEdit, type ConfigFormat, type EntryChange } from './config-format.js';
import { sha256, type ScannedFile } from './detect.js';
import { diffOf } from './plan.js';

export interface PlannedUnwrap {
  file: ScannedFile;
  records: WrapRecord[];
  /** What to write: the backup's bytes when every wrap is undone exactly, else the edited text. */
  after?: Buffer | string;
  view: UnwrapFilePlan;
}

export function planUnwrap(file: ScannedFile, records: WrapRecord[], backups: ClientBackups): PlannedUnwrap {
  const path = file.location.path;
  const entriesOf = (why: string): UnwrapEntryResult[] =>
    records.flatMap((r) => r.entries.map((e) => ({ entry: e.name, ...(e.group && { group: e.group }), outcome: 'kept' as const, why })));
  if (!file.exists) return { file, records, view: { path, how: 'missing', diff: '', entries: entriesOf('the file is gone') } };
  let current: Buffer | string = file.text ?? '';
  let exact = true;
  const results: UnwrapEntryResult[] = [];
  for (const record of records) {
    const bytes = typeof current === 'string' ? Buffer.from(current, 'utf8') : current;
    if (sha256(bytes) === record.hashAfter) {
      current = backups.read(record.backup);
      results.push(...record.entries.map((e) => ({ entry: e.name, ...(e.group && { group: e.group }), outcome: 'restored' as const })));
      continue;
    }
    exact = false;
    let text = typeof current === 'string' ? current : current.toString('utf8');
    const readable = file.format.read(text);
    if ('error' in readable) {
      results.push(...record.entries.map((e) => ({ entry: e.name, outcome: 'kept' as const, why: `the file does not parse now (${readable.error})` })));
      continue;
    }
    for (const entry of record.entries) {
      const outcome = revertEntry(file.format, text, entry);
      if (typeof outcome === 'string') {
        text = outcome;
        results.push({ entry: entry.name, ...(entry.group && { group: entry.group }), outcome: 'restored' });
      } else results.push({ entry: entry.name, ...(entry.group && { group: entry.group }), outcome: 'kept', why: outcome.why });
    }
    current = text;
  }
  const after = exact ? current : current.toString();
  const diff = diffOf(file.format, path, file.text ?? '', after.toString());
  return { file, records, after, view: { path, how: exact ? 'exact' : 'entries', diff, entries: results } };
}

/** The text with one wrapped entry put back, or why it stays as the person has it now. */
function revertEntry(format: ConfigFormat, text: string, entry: EntryRecord): string | { why: string } {
  const now = format.entryText(text, entry.key);
  if (now === undefined) return { why: 'it is no longer in the file' };
  if (entry.originalText !== undefined && now === entry.wrappedText) {
    try {
      const next = format.replaceEntryText(text, entry.key, entry.originalText);
      verifyEdit(format, text, next, entry.key, entry.originalValue);
      return next;
    } catch {
      // Fall through to reverting its keys.
    }
  }
  const read = format.read(text);
  const value = 'entries' in read ? read.entries.find((e) => sameKey(e.key, entry.key))?.value : undefined;
  const wrapped = entry.wrappedValue as Record<string, unknown>;
  if (!isPlainObject(value) || !sameValue(value.command, wrapped.command) || !sameValue(value.args, wrapped.args)) {
    return { why: 'it was changed since the wrap, so it is left as you have it' };
  }
  const inverse = inverseChange(entry.originalValue as Record<string, unknown>, wrapped);
  try {
    const next = format.changeEntry(text, entry.key, inverse);
    verifyEdit(format, text, next, entry.key, applyChangeToValue(value, inverse));
    return next;
  } catch (err) {
    return { why: (err as Error).message };
  }
}

/** The keys that the wrap changed, set back to their values before it (absent ones removed). */
function inverseChange(original: Record<string, unknown>, wrapped: Record<string, unknown>): EntryChange {
  const keys = [...new Set([...Object.keys(wrapped), ...Object.keys(original)])].filter((k) => !sameValue(original[k], wrapped[k]));
  return { set: keys.filter((k) => k in original).map((k): [string, unknown] => [k, original[k]]), remove: keys.filter((k) => !(k in original)) };
}

const sameKey = (a: unknown[], b: unknown[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
