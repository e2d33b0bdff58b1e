import { describe, expect, it } from 'vitest';
import { cautiousHints, effectiveHints, hasAnyAnnotation } from './annotations.js';
import type { ToolDefinition } from './tool.js';

const tool = (annotations: unknown): ToolDefinition => ({ name: 'read_file', inputSchema: { type: 'object' }, annotations }) as ToolDefinition;

const DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
const NONE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const FIELDS = Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[];

describe('effectiveHints: cautious defaults', () => {
  it.each<[string, ToolDefinition | undefined]>([
    ['undefined tool', undefined],
    ['no annotations object', { name: 'read_file' }],
    ['annotations: null', tool(null)],
    ['annotations: a string', tool('readOnly')],
    ['annotations: an array', tool([true, false])],
    ['empty annotations', tool({})],
    ['only a title', tool({ title: 'Read File' })],
  ])('%s → all defaults, nothing supplied', (_label, t) => {
    expect(effectiveHints(t)).toEqual({ ...DEFAULTS, supplied: NONE });
    expect(hasAnyAnnotation(t)).toBe(false);
  });

  const wrongTypes: [string, unknown][] = [
    ['the string "true"', 'true'],
    ['the string "false"', 'false'],
    ['1', 1],
    ['0', 0],
    ['null', null],
    ['an object', { value: true }],
  ];
  const cases = FIELDS.flatMap((field) => wrongTypes.map(([label, value]) => [field, label, value] as const));

  it.each(cases)('%s = %s counts as missing', (field, _label, value) => {
    const t = tool({ [field]: value });
    expect(effectiveHints(t)).toEqual({ ...DEFAULTS, supplied: NONE });
    expect(hasAnyAnnotation(t)).toBe(false);
  });

  it.each(FIELDS.flatMap((field) => [true, false].map((value) => [field, value] as const)))(
    '%s = %s is honoured alone; other fields keep defaults',
    (field, value) => {
      const t = tool({ [field]: value });
      expect(effectiveHints(t)).toEqual({ ...DEFAULTS, [field]: value, supplied: { ...NONE, [field]: true } });
      expect(hasAnyAnnotation(t)).toBe(true);
    },
  );

  it('reads the filesystem server read_file annotations', () => {
    const h = effectiveHints(tool({ readOnlyHint: true, openWorldHint: false }));
    expect(h).toEqual({
      readOnlyHint: true,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
      supplied: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    });
  });

  it('ignores hints inherited from the prototype', () => {
    const ann = Object.create({ readOnlyHint: true }) as Record<string, unknown>;
    expect(effectiveHints(tool(ann)).readOnlyHint).toBe(false);
    expect(hasAnyAnnotation(tool(ann))).toBe(false);
  });
});

describe('cautiousHints', () => {
  it('drops every claim but keeps what was supplied', () => {
    const h = effectiveHints(tool({ readOnlyHint: true, destructiveHint: false, openWorldHint: false }));
    expect(cautiousHints(h)).toEqual({ ...DEFAULTS, supplied: h.supplied });
  });
});
