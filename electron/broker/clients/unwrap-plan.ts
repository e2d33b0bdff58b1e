// Plans an unwrap of one file. Newest wrap first: when the file is byte for byte what that wrap wrote,
// it goes back to the backup's exact bytes; otherwise only Countersign's entries are reverted (their
// exact text when untouched, else their keys), and an entry the person changed since is left alone.
import type { UnwrapEntryResult, UnwrapFilePlan } from '../../../shared/clients.js';
import type { ClientBackups, EntryRecord, WrapRecord } from './backups.js';
import { isPlainObject, sameValue, verifyEntry, type ConfigDoc, type ConfigFormat, type EntryChange, type RawEntry } from './config-format.js';
import { sha256, type ScannedFile } from './detect.js';
import type { Dialect } from './dialects.js';
import { diffOfEdits, editBetween, lineEndsOf, splice, type Edit } from './edits.js';
import { secretsOf } from './plan.js';

export interface PlannedUnwrap {
  file: ScannedFile;
  records: WrapRecord[];
  /** What to write: the backup's bytes when every wrap is undone exactly, else the edited text. */
  after?: Buffer | string;
  view: UnwrapFilePlan;
}

/** Keys that say what a wrapped entry starts: if the person changed them, the entry is theirs. */
const LAUNCH_KEYS = ['command', 'args', 'cmd'];

export function planUnwrap(file: ScannedFile, records: WrapRecord[], backups: ClientBackups): PlannedUnwrap {
  const path = file.location.path;
  const dialect = file.location.client.dialect;
  const entriesOf = (why: string): UnwrapEntryResult[] =>
    records.flatMap((r) => r.entries.map((e) => ({ entry: e.name, ...(e.group && { group: e.group }), outcome: 'kept' as const, why })));
  if (!file.exists) return { file, records, view: { path, how: 'missing', diff: '', entries: entriesOf('the file is gone') } };
  const before = file.text ?? '';
  let current: Buffer | string = before;
  let exact = true;
  /** Edits against the file as it is now, while only one step was taken. */
  let edits: Edit[] | undefined;
  let steps = 0;
  const results: UnwrapEntryResult[] = [];
  for (const record of records) {
    steps++;
    const bytes = typeof current === 'string' ? Buffer.from(current, 'utf8') : current;
    if (sha256(bytes) === record.hashAfter) {
      current = backups.read(record.backup);
      if (steps === 1 && file.doc) edits = exactEdits(file.format, file.doc, record, dialect);
      results.push(...record.entries.map((e) => ({ entry: e.name, ...(e.group && { group: e.group }), outcome: 'restored' as const })));
      continue;
    }
    exact = false;
    const text = typeof current === 'string' ? current : current.toString('utf8');
    const opened = steps === 1 && file.doc ? { doc: file.doc } : file.format.open(text, dialect, path);
    if ('error' in opened) {
      results.push(...record.entries.map((e) => ({ entry: e.name, outcome: 'kept' as const, why: `the file does not parse now (${opened.error})` })));
      continue;
    }
    const step: Edit[] = [];
    for (const entry of record.entries) {
      const outcome = revertEntry(file.format, opened.doc, entry, dialect);
      const label = { entry: entry.name, ...(entry.group && { group: entry.group }) };
      if ('edit' in outcome) {
        step.push(outcome.edit);
        results.push({ ...label, outcome: 'restored' });
      } else results.push({ ...label, outcome: 'kept', why: outcome.why });
    }
    if (steps === 1) edits = step;
    current = splice(text, step);
  }
  const after = exact ? current : current.toString();
  const afterText = after.toString();
  // The diff of the entries alone when the edits are known against the file as it is; else of what differs.
  const known = edits && splice(before, edits) === afterText ? edits : editBetween(before, afterText);
  const diff = diffOfEdits(path, before, known, secretsOf(file));
  const lineEnds = lineEndsOf(before);
  return { file, records, after, view: { path, how: exact ? 'exact' : 'entries', diff, ...(lineEnds && { lineEnds }), entries: results } };
}

/** The entry of `doc` a record's entry is now: by name (and group), as a list may have moved it. */
function findEntry(doc: ConfigDoc, entry: EntryRecord): RawEntry | undefined {
  return doc.entries.find((e) => e.name === entry.name && e.group === entry.group);
}

/** The wrap's edits undone on the file as that wrap left it: each entry's wrapped text back to its original. */
function exactEdits(format: ConfigFormat, doc: ConfigDoc, record: WrapRecord, dialect: Dialect): Edit[] | undefined {
  const out: Edit[] = [];
  for (const e of record.entries) {
    const now = findEntry(doc, e);
    if (!now || e.originalText === undefined || doc.text.slice(...now.span) !== e.wrappedText) return undefined;
    out.push({ start: now.span[0], end: now.span[1], text: e.originalText, secrets: format.entrySecrets(e.originalText, dialect) });
  }
  return out;
}

/** The edit that puts one wrapped entry back, or why it stays as the person has it now. */
function revertEntry(format: ConfigFormat, doc: ConfigDoc, entry: EntryRecord, dialect: Dialect): { edit: Edit } | { why: string } {
  const now = findEntry(doc, entry);
  if (!now) return { why: 'it is no longer in the file' };
  const edit = (text: string): { edit: Edit } => ({ edit: { start: now.span[0], end: now.span[1], text, secrets: format.entrySecrets(text, dialect) } });
  if (entry.originalText !== undefined && doc.text.slice(...now.span) === entry.wrappedText) {
    try {
      verifyEntry(format, doc, now, entry.originalText, entry.originalValue);
      return edit(entry.originalText);
    } catch {
      // Fall through to reverting its keys.
    }
  }
  const value = now.value;
  const original = entry.originalValue as Record<string, unknown>;
  const wrapped = entry.wrappedValue as Record<string, unknown>;
  const launch = LAUNCH_KEYS.filter((k) => !sameValue(original[k], wrapped[k]) || k in wrapped);
  if (!isPlainObject(value) || launch.some((k) => !sameValue(value[k], wrapped[k]))) {
    return { why: 'it was changed since the wrap, so it is left as you have it' };
  }
  try {
    return edit(format.editEntry(doc, now, inverseChange(original, wrapped), dialect));
  } catch (err) {
    return { why: (err as Error).message };
  }
}

/** The keys that the wrap changed, set back to their values before it (absent ones removed). */
function inverseChange(original: Record<string, unknown>, wrapped: Record<string, unknown>): EntryChange {
  const keys = [...new Set([...Object.keys(wrapped), ...Object.keys(original)])].filter((k) => !sameValue(original[k], wrapped[k]));
  return { set: keys.filter((k) => k in original).map((k): [string, unknown] => [k, original[k]]), remove: keys.filter((k) => !(k in original)) };
}
