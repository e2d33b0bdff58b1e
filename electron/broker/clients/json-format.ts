// JSON and JSONC client files (comments, trailing commas). The file is parsed once with jsonc-parser;
// each entry is edited with modify/applyEdits on its own text, indented as in the file, so a 10 MB
// ~/.claude.json costs one parse and everything Countersign does not change stays as it was.
import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import { describedOriginal, jsonComments, jsonCommentsBeside, jsonCommentTokens, lostComments } from './comments.js';
import {
  applyChangeToValue,
  eolOf,
  FormatError,
  lineColumn,
  verifyEntry,
  type ConfigDoc,
  type ConfigFormat,
  type EntryChange,
  type RawEntry,
} from './config-format.js';
import type { Dialect, Probe } from './dialects.js';

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false };

const WORDS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  ValueExpected: 'a value is expected',
  ColonExpected: 'a colon is expected',
  CommaExpected: 'a comma is expected',
  CloseBraceExpected: 'a closing brace is expected',
  CloseBracketExpected: 'a closing bracket is expected',
  PropertyNameExpected: 'a property name is expected',
  EndOfFileExpected: 'the file should end here',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfComment: 'a comment is not closed',
};

// A byte order mark is not JSON: parse as if it were a space, so offsets stay the same.
const body = (text: string): string => (text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text);

function tree(text: string): { root?: Node; error?: ParseError } {
  const errors: ParseError[] = [];
  const root = parseTree(body(text), errors, PARSE_OPTIONS);
  return { root, error: errors[0] };
}

function describeError(text: string, error: ParseError): string {
  const { line, column } = lineColumn(text, error.offset);
  const code = printParseErrorCode(error.error);
  return `line ${line}, column ${column}: ${WORDS[code] ?? code}`;
}

/** The file's own indentation and line ends, for the lines an edit adds. */
function formatting(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text.slice(0, 65536))?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: eolOf(text) };
}

function nodeProbe(root: Node): Probe {
  return {
    at(path) {
      const node = path.length ? findNodeAtLocation(root, path) : root;
      if (!node) return undefined;
      if (node.type === 'object') return { kind: 'object', keys: (node.children ?? []).map((p) => p.children?.[0]?.value as string) };
      if (node.type === 'array') return { kind: 'array', length: node.children?.length ?? 0 };
      return { kind: 'scalar' };
    },
  };
}

interface JsonDoc extends ConfigDoc {
  formatting: FormattingOptions;
}

const spanOf = (node: Node): [number, number] => [node.offset, node.offset + node.length];

export const jsonFormat: ConfigFormat = {
  open(text, dialect, file) {
    const { root, error } = tree(text);
    if (error) return { error: describeError(text, error) };
    if (root?.type !== 'object') return { error: 'the file does not hold a JSON object' };
    const entries: RawEntry[] = [];
    for (const c of dialect.containers(nodeProbe(root), file)) {
      if (c.kind === 'root') {
        entries.push({ key: [], name: c.name, value: getNodeValue(root), span: spanOf(root) });
        continue;
      }
      const node = findNodeAtLocation(root, c.path);
      if (c.kind === 'list') {
        for (const [i, item] of (node?.children ?? []).entries()) {
          const name = item.type === 'object' ? findNodeAtLocation(item, ['name'])?.value : undefined;
          if (typeof name === 'string') entries.push({ key: [...c.path, i], name, value: getNodeValue(item), span: spanOf(item) });
        }
        continue;
      }
      for (const prop of node?.children ?? []) {
        const name = prop.children?.[0]?.value as string;
        const value = prop.children?.[1];
        if (value) entries.push({ key: [...c.path, name], name, group: c.group, project: c.project, value: getNodeValue(value), span: spanOf(value) });
      }
    }
    const doc: JsonDoc = { text, entries, eol: eolOf(text), formatting: formatting(text) };
    return { doc };
  },

  parseEntry(_doc, _entry, text) {
    return parseJsonc(text);
  },

  editEntry(doc, entry, change, dialect) {
    const [start, end] = entry.span;
    const own = doc.text.slice(start, end);
    // The indentation of the entry's line: jsonc-parser indents added lines from the line they are on.
    const lineStart = doc.text.lastIndexOf('\n', start - 1) + 1;
    const pad = /^[ \t]*/.exec(doc.text.slice(lineStart, start))![0];
    const oneLine = !/[\r\n]/.test(own);
    const options = oneLine ? {} : { formattingOptions: (doc as JsonDoc).formatting };
    const before = pad + own;
    const root = parseTree(before, [], PARSE_OPTIONS);
    if (root?.type !== 'object') throw new FormatError(`${entry.key.join('.')} is not an object in the file`);
    const { text: cut, labels } = takeOutComments(before, root, change);
    let out = cut;
    const steps: Array<[string, unknown]> = [...change.remove.map((k): [string, unknown] => [k, undefined]), ...change.set];
    for (const [prop, value] of steps) {
      if (value === undefined && !findNodeAtLocation(parseTree(out, [], PARSE_OPTIONS)!, [prop])) continue;
      out = applyEdits(out, modify(out, [prop], value, options));
    }
    const lost = lostComments(jsonComments(before), jsonComments(out)).map((c) => describedOriginal(c, labels.get(c)));
    const carried = carryComments(out, lost, oneLine, dialect, doc.eol);
    const edited = carried.slice(carried.search(/\S/));
    verifyEntry(jsonFormat, doc, entry, edited, applyChangeToValue(entry.value as Record<string, unknown>, change));
    return edited;
  },

  entrySecrets(text, dialect) {
    const root = parseTree(text, [], PARSE_OPTIONS);
    if (!root) return [];
    const ranges: Array<[number, number]> = [];
    for (const path of dialect.secrets) {
      const map = findNodeAtLocation(root, path);
      for (const prop of map?.type === 'object' ? (map.children ?? []) : []) {
        const v = prop.children?.[1];
        if (v?.type === 'string') ranges.push(spanOf(v));
      }
    }
    return ranges;
  },
};

/**
 * Takes out the comments beside the values the change replaces or removes (on the same line after
 * them), and those on the lines just above a key it removes; says which key each comment in or beside a
 * changed property belonged to.
 */
function takeOutComments(text: string, root: Node, change: EntryChange): { text: string; labels: Map<string, string> } {
  const changed = new Set([...change.remove, ...change.set.map(([k]) => k)]);
  const removed = new Set(change.remove);
  const labels = new Map<string, string>();
  const cuts: Array<[number, number]> = [];
  const label = (comment: string, key: string) => void (labels.has(comment) || labels.set(comment, key));
  let previousEnd = (root.offset ?? 0) + 1;
  for (const prop of root.children ?? []) {
    const key = prop.children?.[0]?.value as string;
    const [propStart, propEnd] = spanOf(prop);
    if (changed.has(key)) {
      for (const c of jsonCommentTokens(text, propStart, propEnd)) label(c.text, key);
      for (const c of jsonCommentsBeside(text, propEnd)) {
        label(c.text.trim(), key);
        cuts.push([c.start - (/[ \t]*$/.exec(text.slice(0, c.start))?.[0].length ?? 0), c.end]);
      }
      if (removed.has(key)) {
        // Whole comment lines between the previous property's line and this key.
        const gap = text.slice(previousEnd, propStart);
        const firstBreak = gap.search(/\r?\n/);
        if (firstBreak >= 0) {
          for (const c of jsonCommentTokens(text, previousEnd + firstBreak, propStart)) {
            label(c.text, key);
            const ls = text.lastIndexOf('\n', c.start - 1) + 1;
            const nl = text.indexOf('\n', c.end);
            if (/^[ \t]*$/.test(text.slice(ls, c.start)) && nl >= 0 && /^[ \t\r]*$/.test(text.slice(c.end, nl))) cuts.push([ls, nl + 1]);
          }
        }
      }
    }
    previousEnd = propEnd;
  }
  let out = text;
  for (const [s, e] of merge(cuts).reverse()) out = out.slice(0, s) + out.slice(e);
  return { text: out, labels };
}

function merge(ranges: Array<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const r of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([...r]);
  }
  return out;
}

/** Puts carried comments at the top of the entry (inline, as block comments, in a one-line entry). */
function carryComments(text: string, carried: string[], oneLine: boolean, _dialect: Dialect, eol: string): string {
  if (!carried.length) return text;
  const node = parseTree(text, [], PARSE_OPTIONS)!;
  const first = node.children?.[0];
  if (oneLine || !first) {
    const inline = carried.map((c) => (c.startsWith('//') ? `/*${c.slice(2).replace(/\*\//g, '*\\/')} */` : c)).join(' ');
    const at = first ? first.offset : node.offset + 1;
    return `${text.slice(0, at)}${inline} ${text.slice(at)}`;
  }
  const lineStart = text.lastIndexOf('\n', first.offset - 1) + 1;
  const indent = text.slice(lineStart, first.offset);
  return text.slice(0, first.offset) + carried.map((c) => c + eol + indent).join('') + text.slice(first.offset);
}

/** The parsed value of a JSONC text; throws FormatError when it does not parse. */
export function parseJsonc(text: string): unknown {
  const { root, error } = tree(text);
  if (error || !root) throw new FormatError(error ? describeError(text, error) : 'empty');
  return getNodeValue(root);
}
