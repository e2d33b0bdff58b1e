import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, definitionHash, definitionRecord, jsonEqual, serverIdentityRecord, sha256Hex } from './canonical-json.js';
import type { ToolDefinition } from './tool.js';

// read_text_file as @modelcontextprotocol/server-filesystem lists it (description shortened).
const READ_TEXT_FILE: ToolDefinition = {
  name: 'read_text_file',
  title: 'Read Text File',
  description: 'Read the complete contents of a file from the file system as text.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      tail: { type: 'number', description: 'If provided, returns only the last N lines of the file' },
      head: { type: 'number', description: 'If provided, returns only the first N lines of the file' },
    },
    required: ['path'],
    $schema: 'http://json-schema.org/draft-07/schema#',
  },
  outputSchema: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

// Rebuilds every object with its keys in reverse order, the way another server build might emit them.
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reverseKeys((value as Record<string, unknown>)[k])]),
  );
}

describe('canonicalJson', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'null'],
    ['booleans', [true, false], '[true,false]'],
    ['integers and decimals', [0, -1, 1.5, 1e21, 1e-7], '[0,-1,1.5,1e+21,1e-7]'],
    ['negative zero', -0, '0'],
    ['string escapes', 'a"b\\c\n\u0001', '"a\\"b\\\\c\\n\\u0001"'],
    ['non-ASCII stays literal', 'café 😀', '"café 😀"'],
    ['lone surrogate is escaped', 'a\ud800', '"a\\ud800"'],
    ['keys sorted', { b: 1, a: 2, c: { z: 1, y: 2 } }, '{"a":2,"b":1,"c":{"y":2,"z":1}}'],
    ['code-unit order: upper before lower, astral before U+FFFD', { a: 1, B: 2, '\ufffd': 3, '😀': 4 }, '{"B":2,"a":1,"😀":4,"\ufffd":3}'],
    ['arrays keep order', [3, 1, 2], '[3,1,2]'],
    ['undefined members dropped', { a: undefined, b: 1 }, '{"b":1}'],
    ['empty containers', { a: {}, b: [] }, '{"a":{},"b":[]}'],
    ['null-prototype object', Object.assign(Object.create(null) as object, { b: 1, a: 2 }), '{"a":2,"b":1}'],
    ['__proto__ from JSON.parse is kept as data', JSON.parse('{"__proto__":{"x":1}}'), '{"__proto__":{"x":1}}'],
  ])('%s', (_label, input, expected) => {
    expect(canonicalJson(input)).toBe(expected);
  });

  it('parses back to the same value', () => {
    expect(JSON.parse(canonicalJson(READ_TEXT_FILE))).toEqual(READ_TEXT_FILE);
  });

  it.each<[string, unknown]>([
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity inside an object', { a: [-Infinity] }],
    ['top-level undefined', undefined],
    ['undefined in an array', [1, undefined]],
    ['bigint', 1n],
    ['function member', { f: () => 1 }],
    ['symbol', Symbol('x')],
    ['Date', new Date(0)],
    ['Map', new Map([['a', 1]])],
  ])('rejects %s', (_label, input) => {
    expect(() => canonicalJson(input)).toThrow(TypeError);
  });

  it('rejects cycles but allows a shared (non-cyclic) reference', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(/circular/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});

describe('jsonEqual', () => {
  it('ignores key order, treats undefined as absent-only', () => {
    expect(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(jsonEqual(undefined, undefined)).toBe(true);
    expect(jsonEqual(undefined, null)).toBe(false);
    expect(jsonEqual({}, undefined)).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});

describe('sha256Hex', () => {
  it('matches node:crypto on known vectors', async () => {
    expect(await sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const text = 'café 😀 \u{e0041}';
    expect(await sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });

  it('refuses lone surrogates, which UTF-8 encoding would blur into U+FFFD', async () => {
    await expect(sha256Hex('a\ud800')).rejects.toThrow(/lone surrogate/);
    await expect(sha256Hex('a\udc00')).rejects.toThrow(/lone surrogate/);
  });
});

describe('definitionRecord and definitionHash', () => {
  it('keeps only the approved fields', () => {
    const tool = { ...READ_TEXT_FILE, icons: [{ src: 'x.png' }], _meta: { a: 1 }, execution: { taskSupport: 'forbidden' } };
    expect(Object.keys(definitionRecord(tool)).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
    expect(canonicalJson(definitionRecord(tool))).toBe(canonicalJson(definitionRecord(READ_TEXT_FILE)));
  });

  it('absent fields leave no trace in the canonical text', () => {
    expect(canonicalJson(definitionRecord({ name: 'echo' }))).toBe('{"name":"echo"}');
  });

  it('key order and whitespace never change the hash', async () => {
    const base = await definitionHash(READ_TEXT_FILE);
    const reordered = reverseKeys(READ_TEXT_FILE) as ToolDefinition;
    const respaced = JSON.parse(JSON.stringify(READ_TEXT_FILE, null, 4)) as ToolDefinition;
    expect(await definitionHash(reordered)).toBe(base);
    expect(await definitionHash(respaced)).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  const schema = READ_TEXT_FILE.inputSchema as { properties: Record<string, unknown>; required: string[] };
  it.each<[string, ToolDefinition]>([
    ['name', { ...READ_TEXT_FILE, name: 'read_text_file2' }],
    ['title', { ...READ_TEXT_FILE, title: 'Read Text File ' }],
    ['title removed', { ...READ_TEXT_FILE, title: undefined }],
    ['description: one character', { ...READ_TEXT_FILE, description: `${READ_TEXT_FILE.description}\u200b` }],
    ['inputSchema gains a property', { ...READ_TEXT_FILE, inputSchema: { ...schema, properties: { ...schema.properties, sidenote: { type: 'string' } } } }],
    ['inputSchema array order', { ...READ_TEXT_FILE, inputSchema: { ...schema, required: ['path', 'head'] } }],
    ['outputSchema removed', { ...READ_TEXT_FILE, outputSchema: undefined }],
    ['a hint flips', { ...READ_TEXT_FILE, annotations: { readOnlyHint: false, openWorldHint: false } }],
    ['a hint changes type', { ...READ_TEXT_FILE, annotations: { readOnlyHint: 'true', openWorldHint: false } }],
    ['a number changes type', { ...READ_TEXT_FILE, inputSchema: { ...schema, maxItems: '1' } }],
    ['empty annotations object appears', { ...READ_TEXT_FILE, annotations: {} }],
  ])('any value change changes the hash: %s', async (_label, changed) => {
    expect(await definitionHash(changed)).not.toBe(await definitionHash(READ_TEXT_FILE));
  });

  it('rejects (not throws) on values JSON cannot carry', async () => {
    const bad = { ...READ_TEXT_FILE, inputSchema: { maximum: NaN } };
    const pending = definitionHash(bad);
    await expect(pending).rejects.toThrow(TypeError);
  });
});

describe('serverIdentityRecord', () => {
  it('keeps name, title, version, protocol version and instructions only', () => {
    const init = {
      serverInfo: { name: 'mcp-servers/everything', title: 'Everything Reference Server', version: '2.0.0', icons: [], websiteUrl: 'https://x' },
      protocolVersion: '2025-06-18',
      instructions: '# Everything Server',
      capabilities: { tools: {} },
    };
    expect(JSON.parse(canonicalJson(serverIdentityRecord(init)))).toEqual({
      serverInfo: { name: 'mcp-servers/everything', title: 'Everything Reference Server', version: '2.0.0' },
      protocolVersion: '2025-06-18',
      instructions: '# Everything Server',
    });
  });

  it('a version bump changes the canonical text; a missing serverInfo is just absent', () => {
    const a = canonicalJson(serverIdentityRecord({ serverInfo: { name: 'memory-server', version: '0.6.3' } }));
    const b = canonicalJson(serverIdentityRecord({ serverInfo: { version: '0.6.4', name: 'memory-server' } }));
    expect(a).toBe('{"serverInfo":{"name":"memory-server","version":"0.6.3"}}');
    expect(b).not.toBe(a);
    expect(canonicalJson(serverIdentityRecord({}))).toBe('{}');
  });
});
