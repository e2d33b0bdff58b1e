// Codex's config.toml: servers are `[mcp_servers.<name>]` tables. An entry is its table's block (its
// header to the next table that is not its own sub-table); edits replace or remove only the keys
// Countersign changes (and their sub-tables, such as `[mcp_servers.<name>.env]`) within that block.
// Entries written another way (inline tables, dotted keys from a parent table) are refused, not guessed.
import { parse, TomlError } from 'smol-toml';
import { describedOriginal, lostComments, tomlComments } from './comments.js';
import { applyChangeToValue, eolOf, FormatError, isPlainObject, verifyEntry, type ConfigFormat, type EntryChange, type RawEntry } from './config-format.js';
import { scanToml, tomlKey, tomlValue, type TomlHeader, type TomlItem, type TomlKeyValue } from './toml-scan.js';

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
function locate(text: string, name: string, items: TomlItem[] = scanToml(text)): Located {
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
  open(text) {
    let doc: Record<string, unknown>;
    try {
      doc = parseToml(text);
    } catch (err) {
      return { error: (err as Error).message };
    }
    const servers = doc.mcp_servers;
    if (servers !== undefined && !isPlainObject(servers)) return { error: 'mcp_servers is not a table' };
    const items = scanToml(text);
    const entries: RawEntry[] = Object.entries(servers ?? {}).map(([name, value]) => {
      const key = ['mcp_servers', name];
      try {
        const at = locate(text, name, items);
        return { key, name, value, span: [at.blockStart, at.blockEnd] };
      } catch (err) {
        return { key, name, value, span: [0, 0], locked: (err as Error).message };
      }
    });
    return { doc: { text, entries, eol: eolOf(text) } };
  },

  parseEntry(_doc, entry, text) {
    const servers = parseToml(text).mcp_servers;
    return isPlainObject(servers) ? servers[entry.name] : undefined;
  },

  editEntry(doc, entry, change) {
    if (entry.locked) throw new FormatError(entry.locked);
    const text = doc.text.slice(...entry.span);
    const edited = changeBlock(text, entry.name, change, doc.eol);
    verifyEntry(tomlFormat, doc, entry, edited, applyChangeToValue(entry.value as Record<string, unknown>, change));
    return edited;
  },

  entrySecrets(text, dialect) {
    let items: TomlItem[];
    try {
      items = scanToml(text);
    } catch {
      return [];
    }
    const secretKeys = new Set(dialect.secrets.map((p) => String(p[0])));
    const ranges: Array<[number, number]> = [];
    for (const item of items) {
      if (item.kind !== 'kv' || item.table[0] !== 'mcp_servers') continue;
      const full = [...item.table, ...item.key];
      if (full.length >= 4 && secretKeys.has(full[2]!)) ranges.push([item.valueStart, item.valueEnd]);
      else if (full.length === 3 && secretKeys.has(full[2]!)) ranges.push(...inlineStrings(text, item));
    }
    return ranges;
  },
};

/** One server's block with the change made: its lines replaced, removed or added, every other byte kept. */
function changeBlock(text: string, name: string, change: EntryChange, eol: string): string {
  const at = locate(text, name);
  const edits: Edit[] = [];
  const labels = new Map<string, string>();
  const removed = new Set([...change.remove, ...change.set.filter(([, v]) => v === undefined).map(([k]) => k)]);
  const gone = at.own.filter((l) => removed.has(l.key[0]!));
  for (const line of gone) edits.push({ at: line.start, end: line.end, text: '' });
  for (const line of at.own) {
    const key = line.key[0]!;
    if (removed.has(key) || change.set.some(([k]) => k === key)) for (const c of tomlComments(text, line.start, line.end)) labels.set(c, key);
  }
  for (const sub of at.subs) {
    const key = sub.header.path[2]!;
    if (!removed.has(key)) continue;
    for (const c of tomlComments(text, sub.header.start, (sub.lines.at(-1) ?? sub.header).end)) labels.set(c, key);
    // The blank line that set the sub-table apart goes with it.
    const blank = /(?:^|\n)([ \t]*\r?\n)$/.exec(text.slice(0, sub.header.start));
    edits.push({ at: sub.header.start - (blank?.[1]?.length ?? 0), end: (sub.lines.at(-1) ?? sub.header).end, text: '' });
  }
  const added: string[] = [];
  for (const [k, v] of change.set) {
    if (v === undefined) continue;
    const lines = at.own.filter((l) => l.key[0] === k);
    if (lines.length > 1 || (lines[0]?.key.length !== undefined && lines[0].key.length > 1) || at.subs.some((s) => s.header.path[2] === k)) {
      throw new FormatError(`${k} of ${name} is written as dotted keys or a sub-table; change it by hand`);
    }
    const line = lines[0];
    if (!line) {
      added.push(`${tomlKey(k)} = ${tomlValue(v)}${eol}`);
      continue;
    }
    // A comment beside the old value goes with it (to the top, marked), not beside the new one.
    const rest = text.slice(line.valueEnd, line.end);
    const beside = /^[ \t]*#[^\r\n]*/.exec(rest)?.[0] ?? '';
    edits.push({ at: line.valueStart, end: line.valueEnd + beside.length, text: tomlValue(v) });
  }
  if (added.length) {
    // New keys go where the first removed one was (a URL replaced by a command), else after the last.
    const after = at.own.at(-1) ?? at.header;
    const place = gone[0]?.start ?? after.end;
    const needsEol = !gone.length && after.end === text.length && !/\r?\n$/.test(text) ? eol : '';
    edits.push({ at: place, end: place, text: needsEol + added.join('') });
  }
  const out = applyEditList(text, edits);
  // Comments in or beside what was replaced or removed move to just under the table's header.
  const now = locate(out, name);
  const lost = lostComments(tomlComments(text, at.blockStart, at.blockEnd), tomlComments(out, now.blockStart, now.blockEnd));
  if (!lost.length) return out;
  const top = now.header.end;
  return out.slice(0, top) + lost.map((c) => describedOriginal(c, labels.get(c)) + eol).join('') + out.slice(top);
}

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
