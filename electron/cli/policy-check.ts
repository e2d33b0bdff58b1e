// `countersign policy check FILE [--user]`: validates a managed (or, with --user, a team) policy before it
// is deployed, with line:column for every error: JSON syntax errors from jsonc-parser, schema errors
// mapped from each zod issue's path to the node it names. Needs no broker. Exit 0 valid, 1 not.
import fs from 'node:fs';
import path from 'node:path';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { managedPolicySchema, teamPolicySchema } from '../../shared/managed-policy-schema.js';
import { escapeControl as e, terminalJson } from '../../shared/escape.js';
import { checkOwnership } from '../broker/policy/managed-ownership.js';

export interface CheckError {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** Line and column (1-based) of an offset. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The node a zod path names, or the nearest parent that exists (a missing key is reported at its object). */
function nodeFor(root: Node, path: Array<string | number>): Node {
  for (let n = path.length; n >= 0; n--) {
    const node = findNodeAtLocation(root, path.slice(0, n));
    if (node) return node;
  }
  return root;
}

export function checkPolicyText(text: string, kind: 'managed' | 'user'): CheckError[] {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (!root && !errors.length) return [{ line: 1, column: 1, path: '', message: 'JSON: the file is empty' }];
  if (errors.length || !root) return errors.map((err) => ({ ...position(text, err.offset), path: '', message: `JSON: ${printParseErrorCode(err.error)}` }));
  const schema = kind === 'managed' ? managedPolicySchema : teamPolicySchema;
  const parsed = schema.safeParse(getNodeValue(root));
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => {
    const at = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    // An unknown key is reported where that key is written.
    const extra = issue.code === 'unrecognized_keys' ? findNodeAtLocation(root, [...at, issue.keys[0]!])?.parent : undefined;
    const node = extra ?? nodeFor(root, at);
    return { ...position(text, node.offset), path: at.join('.') || '(top)', message: issue.message };
  });
}

const say = (text: string): void => void process.stdout.write(text);

export function runPolicyCheck(file: string | undefined, user: boolean, json: boolean): number {
  if (!file) {
    process.stderr.write('policy check needs a file: countersign policy check FILE [--user] [--json]\n');
    return 2;
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    process.stderr.write(`Cannot read ${e(file)}: ${(err as Error).message}\n`);
    return 1;
  }
  const kind = user ? 'user' : 'managed';
  const errors = checkPolicyText(text, kind);
  if (json) {
    say(terminalJson({ file, kind, valid: errors.length === 0, errors }, 2) + '\n');
    return errors.length ? 1 : 0;
  }
  for (const err of errors) say(`${e(file)}:${err.line}:${err.column}: ${err.path ? `${e(err.path)}: ` : ''}${e(err.message)}\n`);
  if (errors.length) {
    say(`${errors.length} error${errors.length === 1 ? '' : 's'}: not a valid ${kind} policy.\n`);
    return 1;
  }
  say(`${e(file)}: a valid ${kind} policy.\n`);
  if (kind === 'managed' && process.platform !== 'win32') {
    const own = checkOwnership(path.resolve(file));
    if (!own.ok) say(`Note: where it is now, it would be ignored: ${e(own.why)}. Once deployed, it must pass: ${e(own.fix)}\n`);
  }
  return 0;
}
