// What wrap and unwrap need from a config file format. JSON/JSONC and Codex's TOML each implement it,
// editing the text in place so that comments, key order, formatting and unknown keys stay.

/** Where an entry is: a JSON path, or (TOML) ['mcp_servers', name]. */
export type EntryKey = Array<string | number>;

export interface RawEntry {
  key: EntryKey;
  name: string;
  /** Where in the file, when not the main list (Claude Code: `projects["/path"]`). */
  group?: string;
  /** The project a group belongs to: its servers start in that folder. */
  project?: string;
  value: unknown;
}

/** Keys to set (in order) and keys to take out, within one entry. */
export interface EntryChange {
  set: Array<[string, unknown]>;
  remove: string[];
}

export interface ConfigFormat {
  /** The entries, or why the file cannot be read (with line and column). */
  read(text: string): { entries: RawEntry[] } | { error: string };
  /** The whole document's value; throws FormatError when it does not parse. */
  parse(text: string): unknown;
  /** The text of one entry as it stands in the file. */
  entryText(text: string, key: EntryKey): string | undefined;
  replaceEntryText(text: string, key: EntryKey, replacement: string): string;
  /** Throws FormatError when the entry cannot be changed without touching anything else. */
  changeEntry(text: string, key: EntryKey, change: EntryChange): string;
  /** Where env and header values are, so previews can mask them. */
  secretRanges(text: string): Array<[number, number]>;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FormatError extends Error {
  override name = 'FormatError';
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
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

/** Checks that an edit changed exactly one entry, to exactly `expected`; anything else is refused. */
export function verifyEdit(format: ConfigFormat, before: string, after: string, key: EntryKey, expected: unknown): void {
  const want = setIn(format.parse(before), key, expected);
  if (!sameValue(want, format.parse(after))) {
    throw new FormatError(`editing ${key.map(String).join('.')} would change more than that entry, so the file is left as it is`);
  }
}

function setIn(doc: unknown, key: EntryKey, value: unknown): unknown {
  if (!key.length) return value;
  const [head, ...rest] = key;
  const obj = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const copy: Record<string, unknown> = Array.isArray(obj) ? ([...obj] as unknown as Record<string, unknown>) : { ...obj };
  const next = setIn(obj[head as string], rest, value);
  if (next === undefined) delete copy[head as string];
  else copy[head as string] = next;
  return copy;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && String(a) === String(b) && a.toISOString?.() === b.toISOString?.();
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
