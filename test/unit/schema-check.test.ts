// Arguments against inputSchema with the real ajv: the declared dialect, clear violations, broken
// schemas as findings, and the validators `connect` checks leased calls with, which must agree.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ajvFor, checkSchema, dialectOf, withSchemaCheck } from '../../electron/broker/checks/schema-check.js';
import { leaseSchema } from '../../electron/broker/checks/schema-export.js';
import { LeaseChecks } from '../../electron/broker/relay-mode/connect/lease-check.js';
import type { DecisionResult } from '../../shared/decision.js';
import type { ToolDefinition } from '../../shared/tool.js';
import { NODE, ROOT } from '../helpers/paths.js';

const tool = (inputSchema: unknown): ToolDefinition => ({ name: 't', inputSchema }) as ToolDefinition;
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
    const tuple = (dialect: string) =>
      tool({ $schema: dialect, type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } });
    const args = { pair: [1, 'x'] };
    expect((await checkSchema(tuple('https://json-schema.org/draft/2020-12/schema'), args)).violated).toBe(true);
    expect((await checkSchema(tuple('http://json-schema.org/draft-07/schema#'), args)).violated).toBe(false);
  });
});

describe('loading', () => {
  it("loads only the dialects it checks: a 2020-12 schema never brings in draft-07's or 2019-09's ajv", async () => {
    const script = `
      import { createRequire } from 'node:module';
      import { checkSchema } from ${JSON.stringify(`${ROOT}electron/broker/checks/schema-check.ts`)};
      const check = await checkSchema({ name: 't', inputSchema: { type: 'object', required: ['a'] } }, {}, '2025-11-25');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /[\\/]ajv[\\/]dist[\\/][^\\/]+\\.js$/.test(f)).map((f) => f.split(/[\\/]/).pop());
      process.stdout.write(JSON.stringify({ violated: check.violated, loaded }));`;
    const { stdout } = await promisify(execFile)(NODE, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    const { violated, loaded } = JSON.parse(stdout) as { violated: boolean; loaded: string[] };
    expect(violated).toBe(true);
    expect(loaded).toContain('2020.js');
    expect(loaded).not.toContain('2019.js');
    expect(loaded).not.toContain('ajv.js');
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

  it("says why a schema is broken in ajv's own words, as a plain ajv compile of that dialect would", async () => {
    type Plain = { compile(schema: object): unknown };
    const options = { allErrors: true, strict: false, validateFormats: false, logger: false };
    const plain = {
      'draft-07': await ajvFor<Plain>('draft-07', options),
      '2019-09': await ajvFor<Plain>('2019-09', options),
      '2020-12': await ajvFor<Plain>('2020-12', options),
    };
    const broken: unknown[] = [
      { type: 'objekt' },
      { properties: { a: { minimum: 'x' }, b: { type: 7 } } },
      { $ref: '#/nowhere' },
      { $schema: 'https://example.com/own-meta', type: 'object' },
      { $schema: 5, type: 'object' },
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' },
      { $schema: 'http://json-schema.org/draft-07/schema#', items: [{ type: 'strin' }] },
    ];
    for (const schema of broken) {
      const dialect = dialectOf(schema);
      let expected = '';
      try {
        plain[dialect].compile(schema as object);
      } catch (err) {
        expected = (err as Error).message;
      }
      expect(expected).not.toBe('');
      const finding = (await checkSchema(tool(schema), {})).findings.find((f) => f.code === 'schema-invalid');
      expect(finding?.message).toBe(`The tool's inputSchema cannot be used to check arguments: ${expected}.`);
    }
  });

  it('escapes control characters in field names it quotes', async () => {
    const check = await checkSchema(strict, { path: 'x', 'evil\u001b[2J\u202e': 1 });
    expect(check.findings[0]!.message).not.toMatch(/[\u001b\u202e]/);
    expect(check.findings[0]!.message).toContain('\\x1b');
  });
});

describe("connect's check of leased calls (exported validators)", () => {
  const cases: Array<[unknown, unknown[]]> = [
    [strict.inputSchema, [{ path: 'x' }, { path: 'x', count: 1.5 }, { count: 1 }, { path: 'x', sidenote: 1 }, undefined, [], 'x']],
    [
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } },
      [{ pair: ['a'] }, { pair: [1] }],
    ],
    [
      { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } } },
      [{ pair: ['a', 1] }, { pair: [1, 'a'] }],
    ],
    [
      {
        type: 'object',
        properties: {
          s: { type: 'string', maxLength: 2, pattern: '^a' },
          u: { type: 'array', uniqueItems: true },
          c: { const: { k: [1] } },
          e: { enum: ['x', 2] },
        },
      },
      [{ s: 'a😀' }, { s: 'a😀😀' }, { s: 'b' }, { u: [{ a: 1 }, { a: 1 }] }, { u: [1, 2] }, { c: { k: [1] } }, { c: { k: [2] } }, { e: 2 }, { e: 'y' }],
    ],
    [
      { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' }, v: { type: 'number' } } } }, $ref: '#/$defs/node' },
      [{ next: { next: { v: 1 } } }, { next: { next: { v: 'x' } } }],
    ],
    [
      {
        type: 'object',
        properties: { a: { type: 'string' } },
        unevaluatedProperties: false,
        anyOf: [{ properties: { b: { type: 'number' } } }, { required: ['a'] }],
      },
      [{ a: 'x' }, { a: 'x', b: 1 }, { a: 'x', z: 1 }],
    ],
    [{ type: 'object', properties: { f: { type: 'string', format: 'email' } } }, [{ f: 'not an email' }, { f: 3 }]],
  ];

  it('agrees with the broker on every call', async () => {
    const checks = new LeaseChecks();
    for (const [schema, calls] of cases) {
      const exported = await leaseSchema(tool(schema));
      expect(exported).toBeTruthy();
      expect(checks.accept(exported!)).toBe(true);
      // The second lease names the validator by key only.
      expect(checks.accept({ key: exported!.key })).toBe(true);
      for (const args of calls) {
        const broker = await checkSchema(tool(schema), args);
        expect({ schema, args, passes: checks.passes(exported!.key, args) }).toEqual({ schema, args, passes: !broker.violated });
      }
    }
  });

  it('gives no validator for a broken schema (no lease), and nothing to check without a schema', async () => {
    for (const broken of [{ type: 'objekt' }, { $ref: '#/nowhere' }, 'not an object', { properties: { a: { minimum: 'x' } } }]) {
      expect(await leaseSchema(tool(broken))).toBeUndefined();
    }
    expect(await leaseSchema({ name: 't' } as ToolDefinition)).toBeNull();
  });

  it('refuses code it cannot use, and passes nothing it has no validator for', () => {
    const checks = new LeaseChecks();
    expect(checks.accept({ key: 'k1', code: 'module.exports = require("node:fs").readFileSync;' })).toBe(false);
    expect(checks.accept({ key: 'k2', code: 'module.exports = 42;' })).toBe(false);
    expect(checks.accept({ key: 'k3', code: 'this is not javascript' })).toBe(false);
    expect(checks.accept({ key: 'k4' })).toBe(false);
    expect(checks.passes('k1', {})).toBe(false);
    expect(checks.passes('unknown', {})).toBe(false);
  });
});

describe('decision', () => {
  const allow: DecisionResult = {
    outcome: 'allow',
    decidedBy: 'policy',
    preview: false,
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
