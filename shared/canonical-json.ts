// One spelling per JSON value, so a hash of what a person approved can be compared later
// no matter how the server ordered keys or spaced its output. Close to RFC 8785 (JCS):
// keys sorted by UTF-16 code units, numbers and strings as JSON.stringify writes them.
import type { ToolAnnotations, ToolDefinition } from './tool.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function write(value: unknown, parents: object[]): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      // Escapes lone surrogates too, so the output is always well-formed and hashes unambiguously.
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not a JSON number`);
      return JSON.stringify(value); // -0 becomes 0, as in JCS
    case 'object':
      break;
    default:
      // undefined in an array or at the top, functions, symbols, bigints: refuse rather than
      // guess, because two different inputs must never share a spelling.
      throw new TypeError(`canonicalJson: ${typeof value} is not a JSON value`);
  }
  if (parents.includes(value)) throw new TypeError('canonicalJson: circular structure');
  parents.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = `[${value.map((item) => write(item, parents)).join(',')}]`;
  } else if (isPlainObject(value)) {
    const members: string[] = [];
    // Default sort compares UTF-16 code units, which is what JCS asks for.
    for (const key of Object.keys(value).sort()) {
      const member = value[key];
      if (member === undefined) continue;
      members.push(`${JSON.stringify(key)}:${write(member, parents)}`);
    }
    out = `{${members.join(',')}}`;
  } else {
    // A Map, Date or class instance would silently lose data through JSON.stringify.
    throw new TypeError('canonicalJson: only plain objects and arrays are JSON containers');
  }
  parents.pop();
  return out;
}

/** The canonical JSON text of a JSON value. Throws on anything JSON cannot carry. */
export function canonicalJson(value: unknown): string {
  return write(value, []);
}

/** Canonical equality; `undefined` (an absent field) equals only itself. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`, via Web Crypto (Node 20 and browsers). */
export async function sha256Hex(text: string): Promise<string> {
  // TextEncoder turns every lone surrogate into U+FFFD, which would let two texts share a hash.
  if (LONE_SURROGATE.test(text)) throw new TypeError('sha256Hex: text contains a lone surrogate');
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The parts of a tool definition a person approves. Other fields (icons, _meta, execution) are not recorded. */
export interface DefinitionRecord {
  name: string;
  title: string | undefined;
  description: string | undefined;
  inputSchema: unknown;
  outputSchema: unknown;
  annotations: ToolAnnotations | undefined;
}

export function definitionRecord(tool: ToolDefinition): DefinitionRecord {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return { name, title, description, inputSchema, outputSchema, annotations };
}

/** What a server says about itself at initialize: a change here is worth showing too. */
export interface ServerIdentityInput {
  serverInfo?: { name?: string; title?: string; version?: string };
  protocolVersion?: string;
  instructions?: string;
}

export interface ServerIdentityRecord {
  serverInfo: { name: string | undefined; title: string | undefined; version: string | undefined } | undefined;
  protocolVersion: string | undefined;
  instructions: string | undefined;
}

export function serverIdentityRecord(init: ServerIdentityInput): ServerIdentityRecord {
  const info = init.serverInfo;
  return {
    serverInfo: info === undefined ? undefined : { name: info.name, title: info.title, version: info.version },
    protocolVersion: init.protocolVersion,
    instructions: init.instructions,
  };
}

/** sha256Hex of the canonical definition record: the fingerprint stored at approval. */
export async function definitionHash(tool: ToolDefinition): Promise<string> {
  // async, so a value JSON cannot carry rejects instead of throwing synchronously
  return sha256Hex(canonicalJson(definitionRecord(tool)));
}
