// YAML client files (Continue's config.yaml and mcpServers blocks, goose's config.yaml), with the `yaml`
// package's Document API, which keeps comments. An entry is edited as a document of its own (its text,
// less its indentation), then put back indented as it was: every byte outside the entry stays. The
// whole file is parsed again to check that only that entry changed (anchors and aliases included).
import { isMap, isNode, isScalar, isSeq, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import { describedOriginal, lostComments, yamlComments } from './comments.js';
import { applyChangeToValue, eolOf, FormatError, lineColumn, sameValue, type ConfigDoc, type ConfigFormat, type RawEntry } from './config-format.js';
import type { EntryKey, Probe } from './dialects.js';
import { splice } from './edits.js';

const OPTIONS = { prettyErrors: false, uniqueKeys: true, strict: true } as const;

function parse(text: string): Document.Parsed {
  return parseDocument(text, OPTIONS);
}

function firstError(text: string, doc: Document.Parsed): string | undefined {
  const err = doc.errors[0];
  if (!err) return undefined;
  const { line, column } = lineColumn(text, err.pos[0]);
  return `line ${line}, column ${column}: ${err.message.split('\n')[0]}`;
}

interface YamlDoc extends ConfigDoc {
  /** The whole file's value, to check that an edit changed its entry only. */
  value: unknown;
  indent: number;
  indentSeq: boolean;
}

function probeOf(doc: Document.Parsed): Probe {
  return {
    at(path) {
      const node = path.length ? doc.getIn(path, true) : doc.contents;
      if (isMap(node)) return { kind: 'object', keys: node.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key)) };
      if (isSeq(node)) return { kind: 'array', length: node.items.length };
      return node === undefined || node === null ? undefined : { kind: 'scalar' };
    },
  };
}

/** The span of a node's own text, from its first character to the end of its value. */
const spanOf = (node: Node): [number, number] => [node.range![0], node.range![1]];

/**
 * The entry's text without its indentation (lines after the first start `column` further right), and
 * how many characters each line lost, to map offsets back.
 */
function dedent(text: string, column: number): { text: string; cut: number[] } | undefined {
  const lines = text.split('\n');
  const cut = lines.map(() => 0);
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const lead = /^[ ]*/.exec(line)![0].length;
    let next: string;
    if (line.trim() === '') next = line.replace(/^[ \t]*/, '');
    else if (lead >= column) next = line.slice(column);
    else if (line.trimStart().startsWith('#')) next = line.trimStart();
    else return undefined;
    cut[i] = line.length - next.length;
    lines[i] = next;
  }
  return { text: lines.join('\n'), cut };
}

const indentLines = (text: string, column: number): string =>
  text
    .split('\n')
    .map((l, i) => (i && l ? ' '.repeat(column) + l : l))
    .join('\n');

/** The least indentation of an entry's lines after its first: its column in the file. */
function columnOf(text: string): number {
  const cols = text
    .split('\n')
    .slice(1)
    .filter((l) => l.trim() && !l.trimStart().startsWith('#'))
    .map((l) => /^[ ]*/.exec(l)![0].length);
  return cols.length ? Math.min(...cols) : 0;
}

function setIn(value: unknown, key: EntryKey, next: unknown): unknown {
  if (!key.length) return next;
  const [head, ...rest] = key;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[head as string] = setIn(copy[head as string], rest, next);
  return copy;
}

export const yamlFormat: ConfigFormat = {
  open(text, dialect, file) {
    const doc = parse(text);
    const error = firstError(text, doc);
    if (error) return { error };
    if (doc.contents !== null && !isMap(doc.contents)) return { error: 'the file does not hold a YAML mapping' };
    const entries: RawEntry[] = [];
    for (const c of doc.contents ? dialect.containers(probeOf(doc), file) : []) {
      if (c.kind === 'root') continue;
      const node = doc.getIn(c.path, true);
      if (c.kind === 'list') {
        for (const [i, item] of (isSeq(node) ? node.items : []).entries()) {
          const name = isMap(item) ? item.get('name') : undefined;
          if (typeof name === 'string' && isMap(item)) entries.push({ key: [...c.path, i], name, value: item.toJS(doc), span: spanOf(item) });
        }
        continue;
      }
      for (const pair of isMap(node) ? node.items : []) {
        const name = String(isScalar(pair.key) ? pair.key.value : pair.key);
        const value = pair.value as Node | null;
        if (value && value.range)
          entries.push({ key: [...c.path, name], name, group: c.group, project: c.project, value: value.toJS(doc), span: spanOf(value) });
      }
    }
    const indent = /^( +)\S/m.exec(text)?.[1]?.length ?? 2;
    const yamlDoc: YamlDoc = {
      text,
      entries,
      eol: eolOf(text),
      value: doc.toJS(),
      indent: Math.min(Math.max(indent, 2), 8),
      // `key:\n- item` (sequences not indented under their key) is a common style; keep it.
      indentSeq: !/^([ ]*)[^\s#-][^\n]*:[ \t]*\r?\n\1- /m.test(text),
    };
    return { doc: yamlDoc };
  },

  parseEntry(doc, entry, text) {
    const whole = parse(splice(doc.text, [{ start: entry.span[0], end: entry.span[1], text }]));
    if (whole.errors.length) throw new FormatError(whole.errors[0]!.message);
    const value = whole.toJS() as unknown;
    // Only the entry may differ from the file as it was.
    if (!sameValue(setIn(value, entry.key, undefined), setIn((doc as YamlDoc).value, entry.key, undefined))) {
      throw new FormatError('the edit changed more than the entry');
    }
    const node = whole.getIn(entry.key, true);
    return isNode(node) ? node.toJS(whole) : node;
  },

  editEntry(doc, entry, change, dialect) {
    const y = doc as YamlDoc;
    const [start, end] = entry.span;
    const lineStart = doc.text.lastIndexOf('\n', start - 1) + 1;
    const column = start - lineStart;
    const raw = doc.text.slice(start, end);
    const tail = /\r?\n$/.exec(raw)?.[0] ?? '';
    const own = raw.slice(0, raw.length - tail.length).replace(/\r\n/g, '\n');
    const flow = /^[{[]/.test(own);
    const alone = flow ? own : dedent(own, column)?.text;
    const cannot = `${entry.name} is written in a shape Countersign cannot edit in place (indentation, anchors or aliases); change it by hand`;
    if (alone === undefined) throw new FormatError(cannot);
    const sub = parse(alone);
    if (sub.errors.length || !isMap(sub.contents)) throw new FormatError(cannot);
    const map = sub.contents as unknown as YAMLMap<unknown, unknown>;
    // Which key each comment in or beside a changed pair belonged to.
    const labels = new Map<string, string>();
    const changed = new Set([...change.remove, ...change.set.map(([k]) => k)]);
    for (const pair of map.items) {
      const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
      const from = (pair.key as Node | null)?.range?.[0];
      const to = (pair.value as Node | null)?.range?.[2];
      if (!changed.has(key) || from === undefined || to === undefined) continue;
      const lineEnd = alone.indexOf('\n', to - 1);
      for (const c of yamlComments(alone.slice(from, lineEnd < 0 ? alone.length : lineEnd))) if (!labels.has(c)) labels.set(c, key);
    }
    for (const key of change.remove) map.delete(key);
    for (const [key, value] of change.set) {
      if (value === undefined) map.delete(key);
      else map.set(key, sub.createNode(value));
    }
    const before = yamlComments(alone);
    let text = sub.toString({ lineWidth: 0, indent: y.indent, indentSeq: y.indentSeq }).replace(/\n$/, '');
    const lost = lostComments(before, yamlComments(text));
    if (lost.length) {
      // Beside the new command: the old one's comments say what they were about.
      const at = (map.get(dialect.launch === 'cmd' ? 'cmd' : 'command', true) as Node | undefined) ?? (map.items[0]?.value as Node | undefined);
      if (at) at.comment = lost.map((c) => describedOriginal(c, labels.get(c)).replace(/^#/, '')).join('\n');
      text = sub.toString({ lineWidth: 0, indent: y.indent, indentSeq: y.indentSeq }).replace(/\n$/, '');
    }
    const edited = (flow ? text : indentLines(text, column)).replace(/\n/g, doc.eol) + tail;
    const expected = applyChangeToValue(entry.value as Record<string, unknown>, change);
    let value: unknown;
    try {
      value = yamlFormat.parseEntry(doc, entry, edited);
    } catch {
      throw new FormatError(cannot);
    }
    if (!sameValue(value, expected)) throw new FormatError(`editing ${entry.key.join('.')} would change more than that entry, so the file is left as it is`);
    return edited;
  },

  entrySecrets(text, dialect) {
    const own = text.replace(/\r?\n$/, '');
    const flow = /^[{[]/.test(own);
    const cut = flow ? { text: own, cut: [] } : dedent(own, columnOf(own));
    if (!cut) return [];
    const sub = parse(cut.text);
    if (sub.errors.length) return [];
    // Offsets in the dedented text, back to the entry's: each line lost `cut[i]` characters.
    const lineStarts = [0];
    for (let at = cut.text.indexOf('\n'); at >= 0; at = cut.text.indexOf('\n', at + 1)) lineStarts.push(at + 1);
    const back = (offset: number): number => {
      let removed = 0;
      for (let line = 0; line < lineStarts.length && lineStarts[line]! <= offset; line++) removed += cut.cut[line] ?? 0;
      return offset + removed;
    };
    const ranges: Array<[number, number]> = [];
    for (const path of dialect.secrets) {
      const map = sub.getIn(path, true);
      for (const pair of isMap(map) ? map.items : []) {
        const v = pair.value as Node | null;
        if (isScalar(v) && v.range) ranges.push([back(v.range[0]), back(v.range[1])]);
      }
    }
    return ranges;
  },
};
