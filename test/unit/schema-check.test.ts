// Arguments against inputSchema with the real ajv: the declared dialect, clear violations, broken
// schemas as findings, and the synchronous path that only runs once warmed.
import { describe, expect, it } from 'vitest';
import { checkSchema, checkSchemaIfReady, dialectOf, warmSchema, withSchemaCheck } from '../../electron/broker/schema-check.js';
import type { DecisionResult } from '../../shared/decision.js';
import type { ToolDefinition } from '../../shared/tool.js';

const tool = (inputSchema: unknown): ToolDefinition => ({ name: 't', inputSchema } as ToolDefinition);
const strict = tool({
  type: 'object',
  properties: { path: { type: 'string' }, count: { type: 'integer' } },
  required: ['path'],
  additionalProperties: false,
});

describe('dialect', () => {
  it('follows $schema, else the MCP revision', () => {
    expect(dialectOf({ $schema: 'http://json-schema.org/draft-07/schema#' }, '2025-11-25')).toBe('draft-07');
    expect(dialectOf({ $schema: 'https://json-schema.org/draft/2020-12/schema' }, '2024-11-05')).toBe('2020-12');
    expect(dialectOf({ $schema: 'https://json-schema.org/draft/2019-09/schema' })).toBe('2019-09');
    expect(dialectOf({}, '2025-06-18')).toBe('draft-07');
    expect(dialectOf({}, '2025-11-25')).toBe('2020-12');
    expect(dialectOf({})).toBe('2020-12');
  });

  it('validates with the dialect the schema declares (prefixItems is 2020-12 only)', async () => {
    const tuple = (dialect: string) => tool({ $schema: dialect, type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } });
    const args = { pair: [1, 'x'] };
    expect((await checkSchema(tuple('https://json-schema.org/draft/2020-12/schema'), args)).violated).toBe(true);
    expect((await checkSchema(tuple('http://json-schema.org/draft-07/schema#'), args)).violated).toBe(false);
  });
});

describe('violations', () => {
  it('names a wrong type, a missing field and an undeclared one', async () => {
    const check = await checkSchema(strict, { count: 'three', sidenote: 'the ssh key' });
    expect(check.violated).toBe(true);
    const message = check.findings.find((f) => f.code === 'schema-violation')?.message ?? '';
    expect(message).toContain("the required field 'path'");
    expect(message).toContain("'count' should be integer");
    expect(message).toContain("undeclared field 'sidenote'");
    expect(check.findings.filter((f) => f.code === 'undeclared-argument')).toEqual([]); // said once
  });

  it('passes valid arguments with no finding, and checks a missing arguments object as {}', async () => {
    expect(await checkSchema(strict, { path: '/tmp/x', count: 2 })).toEqual({ violated: false, findings: [] });
    expect((await checkSchema(strict, undefined)).violated).toBe(true);
  });

  it('flags undeclared fields where the schema allows them, without calling it a violation', async () => {
    const open = tool({ type: 'object', properties: { message: { type: 'string' } } });
    const check = await checkSchema(open, { message: 'hi', sidenote: 'psst' });
    expect(check.violated).toBe(false);
    expect(check.findings.map((f) => f.code)).toEqual(['undeclared-argument']);
    expect(check.findings[0]!.message).toContain("'sidenote'");
  });

  it('turns a broken schema into a finding, not a crash', async () => {
    for (const broken of [{ type: 'objekt' }, { $ref: '#/nowhere' }, 'not an object', { properties: { a: { minimum: 'x' } } }]) {
      const check = await checkSchema(tool(broken), { a: 1 });
      expect(check.violated).toBe(false);
      expect(check.findings.map((f) => f.code)).toContain('schema-invalid');
    }
  });

  it('escapes control characters in field names it quotes', async () => {
    const check = await checkSchema(strict, { path: 'x', 'evil\u001b[2J\u202e': 1 });
    expect(check.findings[0]!.message).not.toMatch(/[\u001b\u202e]/);
    expect(check.findings[0]!.message).toContain('\\x1b');
  });
});

describe('synchronous path', () => {
  it('says nothing until warmed, then checks at once', async () => {
    const fresh = tool({ type: 'object', properties: { n: { type: 'number', description: `fresh ${Math.random()}` } }, additionalProperties: false });
    expect(checkSchemaIfReady(fresh, { n: 'x' })).toBeUndefined();
    warmSchema(fresh);
    await checkSchema(fresh, {}); // the same compile, awaited
    expect(checkSchemaIfReady(fresh, { n: 'x' })?.violated).toBe(true);
    expect(checkSchemaIfReady(fresh, { n: 1 })?.violated).toBe(false);
  });
});

describe('decision', () => {
  const allow: DecisionResult = {
    outcome: 'allow', decidedBy: 'policy', preview: false,
    reasons: [{ code: 'trusted-read-only', severity: 'info', message: 'm' }],
    hints: {} as DecisionResult['hints'],
  };
  it('makes an automatic allow ask, keeps a denial', async () => {
    const check = await checkSchema(strict, {});
    const asked = withSchemaCheck(allow, check, { server: 's', tool: 't' });
    expect(asked.outcome).toBe('ask');
    expect(asked.reasons.map((r) => r.code)).toEqual(['schema-violation', 'trusted-read-only']);
    expect(withSchemaCheck({ ...allow, outcome: 'deny' }, check, { server: 's', tool: 't' }).outcome).toBe('deny');
    expect(withSchemaCheck(allow, { violated: false, findings: [] }, { server: 's', tool: 't' })).toBe(allow);
  });
});
