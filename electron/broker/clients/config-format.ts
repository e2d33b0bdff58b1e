// What wrap and unwrap need from a config file format. JSON/JSONC, TOML and YAML each implement it.
// A file is parsed once (open); each entry is then edited from its own text alone, checked by parsing
// that text again, and the edits are spliced into the file in one pass (edits.ts), so a 10 MB file
// costs one parse, and every byte outside the edited entries stays as it was.
import type { Dialect, EntryKey } from './dialects.js';

export interface RawEntry {
  key: EntryKey;
  name: string;
  /** Where in the file, when not the main list (Claude Code: `projects["/path"]`). */
  group?: string;
  /** The project a group belongs to: its servers start in that folder. */
  project?: string;
  value: unknown;
  /** The entry's text in the file: [start, end). */
  span: [number, number];
  /** Why this entry cannot be edited in place (its shape), when it cannot. */
  locked?: string;
}

/** Keys to set (in order) and keys to take out, within one entry. */
export interface EntryChange {
  set: Array<[string, unknown]>;
  remove: string[];
}

export interface ConfigDoc {
  text: string;
  entries: RawEntry[];
  /** The file's line end, for lines an edit adds. */
  eol: '\n' | '\r\n';
}

export interface ConfigFormat {
  /** Parses the file once: its entries with their spans, or why it cannot be read (with line and column). */
  open(text: string, dialect: Dialect, file: string): { doc: ConfigDoc } | { error: string };
  /**
   * The entry's new text after `change`, made from its text alone and checked by parsing it again.
   * Comments in or beside what the change replaces move to the entry's top, marked as describing the
   * original. Throws FormatError when the entry cannot be changed without touching anything else.
   */
  editEntry(doc: ConfigDoc, entry: RawEntry, change: EntryChange, dialect: Dialect): string;
  /** The value of an entry's text on its own (as placed at `entry`), to check a replacement; throws FormatError. */
  parseEntry(doc: ConfigDoc, entry: RawEntry, text: string): unknown;
  /** Spans of env and header values in an entry's text on its own, so previews can mask them. */
  entrySecrets(text: string, dialect: Dialect): Array<[number, number]>;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FormatError extends Error {
  override name = 'FormatError';
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The value of a change applied to an entry object: the same change the text edit must make. */
export function applyChangeToValue(value: Record<string, unknown>, change: EntryChange): Record<string, unknown> {
  const out = { ...value };
  for (const key of change.remove) delete out[key];
  for (const [key, v] of change.set) {
    if (v === undefined) delete out[key];
    else out[key] = v;
  }
  return out;
}

export function maskRanges(text: string, ranges: Array<[number, number]>, mask: string): string {
  let out = '';
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at) continue;
    out += text.slice(at, start) + mask;
    at = end;
  }
  return out + text.slice(at);
}

/** Checks that an entry's new text holds exactly `expected`; anything else is refused. */
export function verifyEntry(format: ConfigFormat, doc: ConfigDoc, entry: RawEntry, text: string, expected: unknown): void {
  let value: unknown;
  try {
    value = format.parseEntry(doc, entry, text);
  } catch {
    value = Symbol('unparsable');
  }
  if (!sameValue(value, expected)) {
    throw new FormatError(`editing ${entry.key.map(String).join('.')} would change more than that entry, so the file is left as it is`);
  }
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return a instanceof Date && b instanceof Date && String(a) === String(b) && a.toISOString?.() === b.toISOString?.();
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/** The line end a file uses most: CRLF when it has any. */
export const eolOf = (text: string): '\n' | '\r\n' => (text.includes('\r\n') ? '\r\n' : '\n');
