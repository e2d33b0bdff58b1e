// Codex's config.toml: servers are `[mcp_servers.<name>]` tables. Edits replace or remove only the keys
// Countersign changes (and their sub-tables, such as `[mcp_servers.<name>.env]`); every other byte stays.
// Entries written another way (inline tables, dotted keys from a parent table) are refused, not guessed.
import { parse, TomlError } from 'smol-toml';
import { lostComments, tomlComments } from './comments.js';
import { FormatError, type ConfigFormat, type EntryChange, type RawEntry } from './config-format.js';
import { scanToml, tomlKey, tomlValue, type TomlHeader, type TomlItem, type TomlKeyValue } from './toml-scan.js';

const SECRET_KEYS = new Set(['env', 'http_headers']);

function parseToml(text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) throw new FormatError(`line ${err.line}, column ${err.column}: ${err.message.split('\n')[0]}`);
    throw new FormatError((err as Error).message);
  }
}

const startsWith = (path: string[], prefix: string[]): boolean => prefix.every((p, i) => path[i] === p);

interface Located {
  header: TomlHeader;
  /** Key/value lines of the table itself. */
  own: TomlKeyValue[];
  /** Its sub-tables, each with its lines. */
  subs: Array<{ header: TomlHeader; lines: TomlKeyValue[] }>;
  /** The table's block: from its header to the next table that is not its own sub-table. */
  blockStart: number;
  blockEnd: number;
}

/** Finds `[mcp_servers.<name>]`, or says why the entry cannot be edited in place. */
function locate(text: string, name: string): Located {
  const items = scanToml(text);
  const path = ['mcp_servers', name];
  const where = `[mcp_servers.${tomlKey(name)}]`;
  const headerAt = items.findIndex((i) => i.kind === 'header' && !i.array && i.path.length === 2 && startsWith(i.path, path));
  const stray = items.find((i): i is TomlKeyValue => i.kind === 'kv' && startsWith([...i.table, ...i.key], path) && !startsWith(i.table, path));
  if (headerAt < 0 || stray) {
    throw new FormatError(`${name} is not written as a ${where} table (Countersign edits only that form); rewrite it as one, or change it by hand`);
  }
  const header = items[headerAt] as TomlHeader;
  const own: TomlKeyValue[] = [];
  const subs: Located['subs'] = [];
  let blockEnd = text.length;
  for (const item of items.slice(headerAt + 1)) {
    if (item.kind === 'header') {
      if (!startsWith(item.path, path) || item.path.length === 2) {
        blockEnd = item.start;
        break;
      }
      subs.push({ header: item, lines: [] });
    } else if (subs.length) subs.at(-1)!.lines.push(item);
    else own.push(item);
  }
  return { header, own, subs, blockStart: header.start, blockEnd };
}

interface Edit {
  at: number;
  end: number;
  text: string;
}

function applyEditList(text: string, edits: Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.text + out.slice(e.end);
  return out;
}

export const tomlFormat: ConfigFormat = {
  read(text) {
    let doc: Record<string, unknown>;
    try {
      doc = parseToml(text);
    } catch (err) {
      return { error: (err as Error).message };
    }
    const servers = doc.mcp_servers;
    if (servers === undefined) return { entries: [] };
    if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) return { error: 'mcp_servers is not a table' };
    const entries: RawEntry[] = Object.entries(servers).map(([name, value]) => ({ key: ['mcp_servers', name], name, value }));
    return { entries };
  },

  parse: parseToml,

  entryText(text, key) {
    try {
      const at = locate(text, String(key[1]));
      return text.slice(at.blockStart, at.blockEnd);
    } catch {
      return undefined;
    }
  },

  replaceEntryText(text, key, replacement) {
    const at = locate(text, String(key[1]));
    return text.slice(0, at.blockStart) + replacement + text.slice(at.blockEnd);
  },

  changeEntry(text, key, change: EntryChange) {
    const name = String(key[1]);
    const at = locate(text, name);
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const edits: Edit[] = [];
    const removed = new Set([...change.remove, ...change.set.filter(([, v]) => v === undefined).map(([k]) => k)]);
    const gone = at.own.filter((l) => removed.has(l.key[0]!));
    for (const line of gone) edits.push({ at: line.start, end: line.end, text: '' });
    for (const sub of at.subs) {
      if (!removed.has(sub.header.path[2]!)) continue;
      // The blank line that set the sub-table apart goes with it.
      const blank = /(?:^|\n)([ \t]*\r?\n)$/.exec(text.slice(0, sub.header.start));
      edits.push({ at: sub.header.start - (blank?.[1]?.length ?? 0), end: (sub.lines.at(-1) ?? sub.header).end, text: '' });
    }
    const added: string[] = [];
    for (const [k, v] of change.set) {
      if (v === undefined) continue;
      const lines = at.own.filter((l) => l.key[0] === k);
      if (lines.length > 1 || lines[0]?.key.length !== undefined && lines[0].key.length > 1 || at.subs.some((s) => s.header.path[2] === k)) {
        throw new FormatError(`${k} of ${name} is written as dotted keys or a sub-table; change it by hand`);
      }
      if (lines[0]) edits.push({ at: lines[0].valueStart, end: lines[0].valueEnd, text: tomlValue(v) });
      else added.push(`${tomlKey(k)} = ${tomlValue(v)}${eol}`);
    }
    if (added.length) {
      // New keys go where the first removed one was (a URL replaced by a command), else after the last.
      const after = at.own.at(-1) ?? at.header;
      const place = gone[0]?.start ?? after.end;
      const needsEol = !gone.length && after.end === text.length && !/\r?\n$/.test(text) ? eol : '';
      edits.push({ at: place, end: place, text: needsEol + added.join('') });
    }
    const out = applyEditList(text, edits);
    // Comments inside what was replaced or removed move to just under the table's header.
    const after = locate(out, name);
    const lost = lostComments(tomlComments(text, at.blockStart, at.blockEnd), tomlComments(out, after.blockStart, after.blockEnd));
    if (!lost.length) return out;
    const top = after.header.end;
    return out.slice(0, top) + lost.map((c) => c + eol).join('') + out.slice(top);
  },

  secretRanges(text) {
    let items: TomlItem[];
    try {
      items = scanToml(text);
    } catch {
      return [];
    }
    const ranges: Array<[number, number]> = [];
    for (const item of items) {
      if (item.kind !== 'kv' || item.table[0] !== 'mcp_servers') continue;
      const full = [...item.table, ...item.key];
      if (full.length >= 4 && SECRET_KEYS.has(full[2]!)) ranges.push([item.valueStart, item.valueEnd]);
      else if (full.length === 3 && SECRET_KEYS.has(full[2]!)) ranges.push(...inlineStrings(text, item));
    }
    return ranges;
  },
};

/** The values (strings after `=`) inside an inline table. */
function inlineStrings(text: string, item: TomlKeyValue): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const re = /=\s*("(?:[^"\\]|\\.)*"|'[^']*')/g;
  const value = text.slice(item.valueStart, item.valueEnd);
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const start = item.valueStart + m.index + m[0].length - m[1]!.length;
    ranges.push([start, start + m[1]!.length]);
  }
  return ranges;
}
