// A line-level map of a TOML text: table headers and key/value lines with the exact span of each value,
// so an edit can replace a few values and leave every other byte alone. It runs only on text that
// smol-toml has parsed; every edit is checked by parsing the result again.

export interface TomlHeader {
  kind: 'header';
  path: string[];
  array: boolean;
  /** From the line's start to after its line end. */
  start: number;
  end: number;
}

export interface TomlKeyValue {
  kind: 'kv';
  /** The table it belongs to. */
  table: string[];
  key: string[];
  start: number;
  valueStart: number;
  valueEnd: number;
  end: number;
}

export type TomlItem = TomlHeader | TomlKeyValue;

const BARE = /[A-Za-z0-9_-]/;

export function scanToml(text: string): TomlItem[] {
  const items: TomlItem[] = [];
  let table: string[] = [];
  let pos = 0;
  const skipSpace = (): void => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
  };
  const lineEnd = (): number => {
    skipSpace();
    if (text[pos] === '#') while (pos < text.length && text[pos] !== '\n') pos++;
    if (text[pos] === '\r') pos++;
    if (text[pos] === '\n') pos++;
    else if (pos < text.length) throw new Error(`unexpected text at offset ${pos}`);
    return pos;
  };
  const key = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipSpace();
      const c = text[pos];
      if (c === '"' || c === "'") {
        const end = stringEnd(text, pos);
        parts.push(c === '"' ? decodeBasic(text.slice(pos + 1, end - 1)) : text.slice(pos + 1, end - 1));
        pos = end;
      } else {
        const from = pos;
        while (pos < text.length && BARE.test(text[pos]!)) pos++;
        if (pos === from) throw new Error(`a key is expected at offset ${pos}`);
        parts.push(text.slice(from, pos));
      }
      skipSpace();
      if (text[pos] !== '.') return parts;
      pos++;
    }
  };
  while (pos < text.length) {
    const start = pos;
    skipSpace();
    const c = text[pos];
    if (c === '\n' || c === '\r' || c === '#' || pos >= text.length) {
      lineEnd();
      continue;
    }
    if (c === '[') {
      const array = text[pos + 1] === '[';
      pos += array ? 2 : 1;
      const path = key();
      pos += array ? 2 : 1;
      table = path;
      items.push({ kind: 'header', path, array, start, end: lineEnd() });
      continue;
    }
    const k = key();
    if (text[pos] !== '=') throw new Error(`'=' is expected at offset ${pos}`);
    pos++;
    skipSpace();
    const valueStart = pos;
    pos = valueEnd(text, pos);
    const valueEndAt = pos;
    items.push({ kind: 'kv', table, key: k, start, valueStart, valueEnd: valueEndAt, end: lineEnd() });
  }
  return items;
}

/** The offset just after the string that starts at `at` (any of TOML's four kinds). */
function stringEnd(text: string, at: number): number {
  const q = text[at]!;
  const multi = text.startsWith(q.repeat(3), at);
  let pos = at + (multi ? 3 : 1);
  for (;;) {
    if (pos >= text.length) throw new Error('a string is not closed');
    const c = text[pos];
    if (c === '\\' && q === '"') pos += 2;
    else if (multi && text.startsWith(q.repeat(3), pos)) {
      pos += 3;
      // Up to two more quotes belong to the string's content.
      for (let extra = 0; extra < 2 && text[pos] === q; extra++) pos++;
      return pos;
    } else if (!multi && c === q) return pos + 1;
    else pos++;
  }
}

/** The offset just after the value that starts at `at`. */
function valueEnd(text: string, at: number): number {
  const c = text[at];
  if (c === '"' || c === "'") return stringEnd(text, at);
  if (c === '[' || c === '{') {
    let depth = 0;
    let pos = at;
    while (pos < text.length) {
      const ch = text[pos]!;
      if (ch === '"' || ch === "'") pos = stringEnd(text, pos);
      else if (ch === '#') while (pos < text.length && text[pos] !== '\n') pos++;
      else {
        if (ch === '[' || ch === '{') depth++;
        else if (ch === ']' || ch === '}') depth--;
        pos++;
        if (depth === 0) return pos;
      }
    }
    throw new Error('an array or inline table is not closed');
  }
  // A bare value (number, boolean, date) runs to a comment or the line's end.
  let pos = at;
  while (pos < text.length && text[pos] !== '#' && text[pos] !== '\n' && text[pos] !== '\r') pos++;
  while (pos > at && (text[pos - 1] === ' ' || text[pos - 1] === '\t')) pos--;
  return pos;
}

function decodeBasic(raw: string): string {
  return raw.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|.)/g, (_m, e: string) => {
    if (/^[uUx]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    return ({ b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' } as Record<string, string>)[e] ?? e;
  });
}

/** A TOML basic string for any text: JSON's escapes are TOML's, except that DEL must be escaped too. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\x7f/g, '\\u007f');
}

/** A key as TOML writes it: bare when it can be. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** Strings, numbers, booleans, lists and tables, on one line (tables inline). */
export function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    const pairs = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
    return pairs.length ? `{ ${pairs.join(', ')} }` : '{}';
  }
  if (value instanceof Date) return value.toISOString();
  throw new Error(`cannot write ${typeof value} as TOML`);
}
