// JSON and JSONC client files (comments, trailing commas), edited with jsonc-parser's modify/applyEdits
// so that everything Countersign does not change stays as it was.
import {
  applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, printParseErrorCode,
  type FormattingOptions, type Node, type ParseError,
} from 'jsonc-parser';
import type { ClientDef } from './catalogue.js';
import { jsonComments, lostComments } from './comments.js';
import { FormatError, lineColumn, type ConfigFormat, type EntryChange, type EntryKey, type RawEntry } from './config-format.js';

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false };
const SECRET_KEYS = ['env', 'headers'];

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
const withBom = (original: string, edited: string): string => (original.charCodeAt(0) === 0xfeff ? `\ufeff${edited.slice(1)}` : edited);

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
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return { insertSpaces: !indent.startsWith('\t'), tabSize: indent.startsWith('\t') ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

export function jsonFormat(client: ClientDef): ConfigFormat {
  const containers = (root: Node): Array<{ path: EntryKey; group?: string; project?: string }> => {
    if (client.containers === 'servers') return [{ path: ['servers'] }];
    const list: Array<{ path: EntryKey; group?: string; project?: string }> = [{ path: ['mcpServers'] }];
    if (client.containers === 'claude-code') {
      const projects = findNodeAtLocation(root, ['projects']);
      for (const prop of projects?.type === 'object' ? projects.children ?? [] : []) {
        const name = prop.children?.[0]?.value as string;
        list.push({ path: ['projects', name, 'mcpServers'], group: `projects[${JSON.stringify(name)}]`, project: name });
      }
    }
    return list;
  };

  const nodeAt = (text: string, key: EntryKey): Node | undefined => {
    const { root } = tree(text);
    return root && findNodeAtLocation(root, key);
  };

  return {
    read(text) {
      const { root, error } = tree(text);
      if (error) return { error: describeError(text, error) };
      if (root?.type !== 'object') return { error: 'the file does not hold a JSON object' };
      const entries: RawEntry[] = [];
      for (const { path, group, project } of containers(root)) {
        const node = findNodeAtLocation(root, path);
        if (!node) continue;
        if (node.type !== 'object') return { error: `${path.join('.')} is not an object` };
        for (const prop of node.children ?? []) {
          const name = prop.children?.[0]?.value as string;
          const value = prop.children?.[1] ? getNodeValue(prop.children[1]) : undefined;
          entries.push({ key: [...path, name], name, group, project, value });
        }
      }
      return { entries };
    },

    parse: parseJsonc,

    entryText(text, key) {
      const node = nodeAt(text, key);
      return node && text.slice(node.offset, node.offset + node.length);
    },

    replaceEntryText(text, key, replacement) {
      const node = nodeAt(text, key);
      if (!node) throw new FormatError(`${key.join('.')} is no longer in the file`);
      return text.slice(0, node.offset) + replacement + text.slice(node.offset + node.length);
    },

    changeEntry(text, key, change) {
      const node = nodeAt(text, key);
      if (node?.type !== 'object') throw new FormatError(`${key.join('.')} is not an object in the file`);
      // A one-line entry stays on one line; others get the file's indentation.
      const oneLine = !/[\r\n]/.test(text.slice(node.offset, node.offset + node.length));
      const options = oneLine ? {} : { formattingOptions: formatting(text) };
      let out = body(text);
      const had = jsonComments(out, node.offset, node.offset + node.length);
      const steps: Array<[string, unknown]> = [...change.remove.map((k): [string, unknown] => [k, undefined]), ...change.set];
      for (const [prop, value] of steps) {
        if (value === undefined && !findNodeAtLocation(parseTree(out, [], PARSE_OPTIONS)!, [...key, prop])) continue;
        out = applyEdits(out, modify(out, [...key, prop], value, options));
      }
      return withBom(text, carryComments(out, key, had, oneLine));
    },

    secretRanges(text) {
      const { root } = tree(text);
      if (!root || root.type !== 'object') return [];
      const read = this.read(text);
      if ('error' in read) return [];
      const ranges: Array<[number, number]> = [];
      for (const entry of read.entries) {
        for (const k of SECRET_KEYS) {
          const map = findNodeAtLocation(root, [...entry.key, k]);
          for (const prop of map?.type === 'object' ? map.children ?? [] : []) {
            const v = prop.children?.[1];
            if (v?.type === 'string') ranges.push([v.offset, v.offset + v.length]);
          }
        }
      }
      return ranges;
    },
  };
}

/** Puts comments the edit dropped (they were inside replaced values) at the top of the entry. */
function carryComments(text: string, key: EntryKey, had: string[], oneLine: boolean): string {
  const node = findNodeAtLocation(parseTree(text, [], PARSE_OPTIONS)!, key)!;
  const lost = lostComments(had, jsonComments(text, node.offset, node.offset + node.length));
  if (!lost.length) return text;
  const first = node.children?.[0];
  if (oneLine || !first) {
    const inline = lost.map((c) => (c.startsWith('//') ? `/*${c.slice(2).replace(/\*\//g, '*\\/')} */` : c)).join(' ');
    const at = first ? first.offset : node.offset + 1;
    return `${text.slice(0, at)}${inline} ${text.slice(at)}`;
  }
  const lineStart = text.lastIndexOf('\n', first.offset - 1) + 1;
  const indent = text.slice(lineStart, first.offset);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return text.slice(0, first.offset) + lost.map((c) => c + eol + indent).join('') + text.slice(first.offset);
}

/** For tests and checks: the parsed value of a JSONC text. */
export function parseJsonc(text: string): unknown {
  const { root, error } = tree(text);
  if (error || !root) throw new FormatError(error ? describeError(text, error) : 'empty');
  return getNodeValue(root);
}
