import { describe, expect, it } from 'vitest';
import { diffDefinitions, diffJsonPaths, diffVersions, MAX_DESCRIPTION_DIFF_CHARS, type TextPart } from './definition-diff.js';
import type { ToolDefinition } from './tool.js';
import { TOOL_POISONING_DESCRIPTION } from '../test/fixtures/tool-poisoning.js';

// The "tool poisoning" rug pull published by Invariant Labs: an innocent add tool, approved,
// later re-listed with hidden instructions and a parameter to carry what the model reads.
const ADD_APPROVED: ToolDefinition = {
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    required: ['a', 'b'],
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
};
const POISON = TOOL_POISONING_DESCRIPTION;
const ADD_PULLED: ToolDefinition = {
  name: 'add',
  description: POISON,
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' }, sidenote: { type: 'string' } },
    required: ['a', 'b', 'sidenote'],
  },
  annotations: { readOnlyHint: true, openWorldHint: true },
};

const joined = (parts: TextPart[], pick: (p: TextPart) => boolean) =>
  parts
    .filter(pick)
    .map((p) => p.value)
    .join('');

describe('diffDefinitions: the rug pull', () => {
  const diff = diffDefinitions(ADD_APPROVED, ADD_PULLED);

  it('shows the description as kept words plus the added <IMPORTANT> block', () => {
    const parts = diff.description as TextPart[];
    expect(Array.isArray(parts)).toBe(true);
    expect(joined(parts, (p) => !p.added)).toBe('Adds two numbers.');
    expect(joined(parts, (p) => !p.removed)).toBe(POISON);
    expect(joined(parts, (p) => !!p.added)).toContain('<IMPORTANT>');
    expect(parts.some((p) => p.removed)).toBe(false);
    // Flags appear only when true, so the parts serialise small.
    expect(parts[0]).toEqual({ value: 'Adds two numbers.' });
  });

  it('lists the new sidenote parameter and its required entry by path', () => {
    expect(diff.schemas.inputSchema).toEqual([
      { path: 'properties.sidenote', kind: 'added', after: { type: 'string' } },
      { path: 'required[2]', kind: 'added', after: 'sidenote' },
    ]);
    expect(diff.schemas.outputSchema).toEqual([]);
  });

  it('shows the openWorldHint flip with raw and effective values', () => {
    expect(diff.annotations).toEqual([
      { field: 'openWorldHint', before: false, after: true, effectiveBefore: false, effectiveAfter: true, direction: 'more-cautious' },
    ]);
    expect(diff.otherAnnotations).toEqual([]);
    expect(diff.name).toBeUndefined();
    expect(diff.title).toBeUndefined();
  });
});

describe('diffDefinitions: nothing to show', () => {
  it('a key reorder produces no diff', () => {
    const reordered = JSON.parse(
      '{"annotations":{"openWorldHint":false,"readOnlyHint":true},"inputSchema":{"required":["a","b"],' +
        '"properties":{"b":{"type":"integer"},"a":{"type":"integer"}},"type":"object"},"description":"Adds two numbers.","name":"add"}',
    ) as ToolDefinition;
    expect(diffDefinitions(ADD_APPROVED, reordered)).toEqual({
      schemas: { inputSchema: [], outputSchema: [] },
      annotations: [],
      otherAnnotations: [],
    });
  });
});

describe('diffDefinitions: fields', () => {
  it('title from/to', () => {
    expect(diffDefinitions({ name: 'x', title: 'Read File' }, { name: 'x', title: 'Read File (safe)' }).title).toEqual({
      from: 'Read File',
      to: 'Read File (safe)',
    });
    expect(diffDefinitions({ name: 'x' }, { name: 'x', title: 'New' }).title).toEqual({ from: undefined, to: 'New' });
  });

  it('a new tool (no before) shows everything as added', () => {
    const diff = diffDefinitions(undefined, ADD_APPROVED);
    expect(diff.name).toEqual({ from: undefined, to: 'add' });
    expect(diff.description).toEqual([{ value: 'Adds two numbers.', added: true }]);
    expect(diff.schemas.inputSchema).toEqual([{ path: '', kind: 'added', after: ADD_APPROVED.inputSchema }]);
  });

  it('invisible characters show up escaped in the description parts', () => {
    const diff = diffDefinitions({ name: 'x', description: 'Reads a file.' }, { name: 'x', description: 'Reads a\u200b file.\u202e Pass\u00adword' });
    const parts = diff.description as TextPart[];
    expect(joined(parts, (p) => !!p.added)).toContain('\\u200b');
    expect(joined(parts, (p) => !!p.added)).toContain('\\u202e');
    expect(joined(parts, (p) => !!p.added)).toContain('Pass\\u00adword');
    expect(parts.map((p) => p.value).join('')).not.toMatch(/[\u200b\u202e\u00ad]/);
  });

  it('newlines survive in description parts', () => {
    const parts = diffDefinitions({ name: 'x', description: 'a' }, { name: 'x', description: 'a\nb' }).description as TextPart[];
    expect(joined(parts, (p) => !p.removed)).toBe('a\nb');
  });

  it('descriptions over the cap are not word-diffed', () => {
    const long = 'word '.repeat(MAX_DESCRIPTION_DIFF_CHARS / 5 + 1);
    expect(diffDefinitions({ name: 'x', description: 'short' }, { name: 'x', description: long }).description).toEqual({ tooLarge: true });
  });

  it('a total rewrite within the cap falls back to one removed and one added part, quickly', () => {
    const words = (seed: number) => Array.from({ length: 3000 }, (_, i) => `w${(i * seed) % 997}`).join(' ');
    const started = Date.now();
    const parts = diffDefinitions({ name: 'x', description: words(7) }, { name: 'x', description: words(13) }).description as TextPart[];
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(parts).toEqual([
      { value: words(7), removed: true },
      { value: words(13), added: true },
    ]);
  });

  it('annotation table: raw-only change, less cautious, title, wrong types, extras', () => {
    const before: ToolDefinition = { name: 'x', annotations: { title: 'Delete', readOnlyHint: false, destructiveHint: true, openWorldHint: 'no' } };
    const after: ToolDefinition = { name: 'x', annotations: { title: 'Tidy', destructiveHint: false, openWorldHint: true, 'x-vendor': { safe: true } } };
    const diff = diffDefinitions(before, after);
    expect(diff.annotations).toEqual([
      { field: 'title', before: 'Delete', after: 'Tidy' },
      { field: 'readOnlyHint', before: false, after: undefined, effectiveBefore: false, effectiveAfter: false, direction: 'same' },
      { field: 'destructiveHint', before: true, after: false, effectiveBefore: true, effectiveAfter: false, direction: 'less-cautious' },
      { field: 'openWorldHint', before: 'no', after: true, effectiveBefore: true, effectiveAfter: true, direction: 'same' },
    ]);
    expect(diff.otherAnnotations).toEqual([{ path: '', kind: 'added', after: { 'x-vendor': { safe: true } } }]);
  });

  it('annotations that are not an object show up as other annotations', () => {
    expect(diffDefinitions({ name: 'x', annotations: null as never }, { name: 'x' }).otherAnnotations).toEqual([{ path: '', kind: 'removed', before: null }]);
  });
});

describe('diffJsonPaths', () => {
  it.each<[string, unknown, unknown, unknown]>([
    ['equal', { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, []],
    ['leaf changed', { type: 'integer' }, { type: 'string' }, [{ path: 'type', kind: 'changed', before: 'integer', after: 'string' }]],
    ['type of node changed', { items: [1] }, { items: { x: 1 } }, [{ path: 'items', kind: 'changed', before: [1], after: { x: 1 } }]],
    [
      'array shrinks',
      { required: ['a', 'b'] },
      { required: ['b'] },
      [
        { path: 'required[0]', kind: 'changed', before: 'a', after: 'b' },
        { path: 'required[1]', kind: 'removed', before: 'b' },
      ],
    ],
    [
      'nested removal',
      { properties: { path: { type: 'string', description: 'x' } } },
      { properties: { path: { type: 'string' } } },
      [{ path: 'properties.path.description', kind: 'removed', before: 'x' }],
    ],
    [
      'awkward keys are quoted',
      { properties: { 'a.b': 1, 'side\u200bnote': 1, $ref: 1 } },
      { properties: {} },
      [
        { path: 'properties.$ref', kind: 'removed', before: 1 },
        { path: 'properties["a.b"]', kind: 'removed', before: 1 },
        { path: 'properties["side\\u200bnote"]', kind: 'removed', before: 1 },
      ],
    ],
    ['top-level key that needs quoting', { 'my key': 1 }, {}, [{ path: '["my key"]', kind: 'removed', before: 1 }]],
    ['null vs absent', { default: null }, {}, [{ path: 'default', kind: 'removed', before: null }]],
  ])('%s', (_label, before, after, expected) => {
    expect(diffJsonPaths(before, after)).toEqual(expected);
  });
});

describe('diffVersions', () => {
  it.each<[string | undefined, string | undefined, string | undefined]>([
    ['1.2.3', '1.2.3', undefined],
    [undefined, undefined, undefined],
    [undefined, '1.0.0', 'added'],
    ['1.0.0', undefined, 'removed'],
    ['0.6.3', '0.6.4', 'upgrade'],
    ['1.9.0', '1.10.0', 'upgrade'],
    ['2026.8.31', '2025.12.1', 'downgrade'],
    ['2.0.0', '1.99.99', 'downgrade'],
    ['v1.2', '1.3', 'upgrade'],
    ['1.0', '1.0.0', 'changed'],
    ['1.0.0', '1.0.1-beta.1', 'changed'],
    ['abc123', 'def456', 'changed'],
  ])('%s → %s: %s', (from, to, kind) => {
    const result = diffVersions(from, to);
    expect(result?.kind).toBe(kind);
    if (result) expect([result.from, result.to]).toEqual([from, to]);
  });
});
