// Checks a call's arguments against the tool's inputSchema with ajv, in the dialect the schema
// declares ($schema), else 2020-12 for MCP 2025-11-25 and later and draft-07 before. ajv is loaded on
// first use only, in the broker (`connect` checks leased calls with code exported by schema-export.ts
// from the same compiled validator), and each schema is compiled once per canonical hash. A broken
// schema is a finding, never a crash; violations are findings that make an automatic allow ask instead.
import { createHash } from 'node:crypto';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { DecisionResult } from '../../../shared/decision.js';
import type { Finding } from '../../../shared/findings.js';
import { bySeverity, reason, type ReasonContext } from '../../../shared/reasons.js';
import { escapeControl } from '../../../shared/escape.js';
import type { ToolDefinition } from '../../../shared/tool.js';

export type Dialect = 'draft-07' | '2019-09' | '2020-12';

export interface SchemaCheck {
  /** The arguments break the schema: an automatic allow must ask instead. */
  violated: boolean;
  findings: Finding[];
}

export interface Compiler {
  compile(schema: object): ValidateFunction;
}
interface MetaCheck {
  /** Throws ajv's own "schema is invalid: …" error, as its compile would. */
  validateSchema(schema: object, throwOrLogError: true): boolean;
}
/** A schema's validator and the ajv instance that made it (schema-export.ts writes standalone code from both). */
export type Compiled = { ok: true; validate: ValidateFunction; compiler: Compiler } | { ok: false; error: string };

const MAX_CACHED = 512;
const MAX_SHOWN_ERRORS = 8;
const cache = new Map<string, Compiled>();
/** Per dialect, made on its first schema: a process that only sees one dialect never loads the others. */
const compilers = new Map<Dialect, Promise<{ code: Compiler; meta: MetaCheck }>>();

/** The dialect a schema asks for; without $schema, what the session's MCP revision implies. */
export function dialectOf(schema: unknown, protocolVersion?: string): Dialect {
  const declared = typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  if (typeof declared === 'string') {
    if (/draft-0?7|draft-0?6|draft-0?4/.test(declared)) return 'draft-07';
    if (/2019-09/.test(declared)) return '2019-09';
    if (/2020-12/.test(declared)) return '2020-12';
  }
  return protocolVersion !== undefined && protocolVersion < '2025-11-25' ? 'draft-07' : '2020-12';
}

const DIALECT_MODULE: Record<Dialect, () => Promise<unknown>> = {
  'draft-07': () => import('ajv'),
  '2019-09': () => import('ajv/dist/2019.js'),
  '2020-12': () => import('ajv/dist/2020.js'),
};

/** An ajv instance for `dialect`, made with `options`; that part of ajv is imported on the first call. */
export async function ajvFor<T>(dialect: Dialect, options: object): Promise<T> {
  const mod = await DIALECT_MODULE[dialect]();
  const Ctor = ((mod as { default?: unknown }).default ?? mod) as new (o: object) => T;
  return new Ctor(options);
}

function load(dialect: Dialect): Promise<{ code: Compiler; meta: MetaCheck }> {
  let made = compilers.get(dialect);
  if (made) return made;
  // Formats need ajv-formats, which is not a dependency: they are left unchecked rather than guessed.
  const options = { allErrors: true, strict: false, validateFormats: false, logger: false };
  // `code` keeps each validator's source so that `connect` gets the same validator as code: one compile
  // (and one instance) serves both. All errors are collected for the finding; `connect` only needs
  // valid or not, which does not depend on it. The schema itself is checked against its dialect's
  // meta-schema by `meta`, as ajv's compile would: there the meta-schema's large validator keeps no source.
  made = Promise.all([ajvFor<Compiler>(dialect, { ...options, code: { source: true }, validateSchema: false }), ajvFor<MetaCheck>(dialect, options)]).then(
    ([code, meta]) => ({ code, meta }),
  );
  compilers.set(dialect, made);
  return made;
}

/**
 * One compiled schema per dialect and canonical content. Asked on every call: the hash is kept per schema
 * object (a definition is parsed from the server's listing and never changed in place; a new listing
 * brings new objects).
 */
export const schemaKey = (schema: unknown, dialect: Dialect): string => `${dialect}:${contentHash(schema)}`;

const hashes = new WeakMap<object, string>();
function contentHash(schema: unknown): string {
  const known = typeof schema === 'object' && schema !== null ? hashes.get(schema) : undefined;
  if (known !== undefined) return known;
  const hash = createHash('sha256').update(canonicalJson(schema)).digest('hex');
  if (typeof schema === 'object' && schema !== null) hashes.set(schema, hash);
  return hash;
}

function compileWith(meta: MetaCheck, compiler: Compiler, schema: unknown): Compiled {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, error: 'the inputSchema is not a JSON object' };
  try {
    meta.validateSchema(schema, true);
    return { ok: true, validate: compiler.compile(schema), compiler };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function remember(key: string, compiled: Compiled): Compiled {
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

/** The schema compiled in `dialect`, cached under `key` (schemaKey); loads ajv the first time. */
export async function compiledSchema(schema: unknown, dialect: Dialect, key: string): Promise<Compiled> {
  const hit = cache.get(key);
  if (hit) return hit;
  const { code, meta } = await load(dialect);
  return cache.get(key) ?? remember(key, compileWith(meta, code, schema));
}

async function compiled(tool: ToolDefinition, protocolVersion?: string): Promise<Compiled> {
  const dialect = dialectOf(tool.inputSchema, protocolVersion);
  let key: string;
  try {
    key = schemaKey(tool.inputSchema, dialect);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  return compiledSchema(tool.inputSchema, dialect, key);
}

function describe(e: ErrorObject): string {
  const at = e.instancePath ? `'${escapeControl(e.instancePath.slice(1).replace(/\//g, '.'))}'` : 'the arguments';
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at} miss the required field '${escapeControl(String(params.missingProperty))}'`;
    case 'additionalProperties':
      return `${at} ${at === 'the arguments' ? 'carry' : 'carries'} the undeclared field '${escapeControl(String(params.additionalProperty))}'`;
    case 'unevaluatedProperties':
      return `${at} ${at === 'the arguments' ? 'carry' : 'carries'} the undeclared field '${escapeControl(String(params.unevaluatedProperty))}'`;
    case 'type':
      return `${at} should be ${escapeControl(String(params.type))}`;
    default:
      return `${at} ${escapeControl(e.message ?? `fails '${e.keyword}'`)}`;
  }
}

function result(compiledSchema: Compiled, tool: ToolDefinition, args: unknown): SchemaCheck {
  if (!compiledSchema.ok) {
    return {
      violated: false,
      findings: [
        {
          code: 'schema-invalid',
          severity: 'warning',
          field: 'inputSchema',
          message: `The tool's inputSchema cannot be used to check arguments: ${escapeControl(compiledSchema.error.slice(0, 300))}.`,
          excerpt: escapeControl(safeJson(tool.inputSchema).slice(0, 200)),
        },
      ],
    };
  }
  const findings: Finding[] = [];
  // MCP arguments are an object; a call without them is checked as {}.
  const value = args === undefined ? {} : args;
  let violated = false;
  if (!compiledSchema.validate(value)) {
    violated = true;
    const errors = compiledSchema.validate.errors ?? [];
    const shown = errors.slice(0, MAX_SHOWN_ERRORS).map(describe);
    findings.push({
      code: 'schema-violation',
      severity: 'warning',
      field: 'arguments',
      message: `The arguments do not match the tool's inputSchema: ${shown.join('; ')}${errors.length > shown.length ? `; and ${errors.length - shown.length} more` : ''}.`,
      excerpt: escapeControl(safeJson(value).slice(0, 200)),
    });
  }
  findings.push(...undeclared(tool.inputSchema, value, violated ? findings[0]!.message : ''));
  return { violated, findings };
}

/** Top-level fields the schema does not name, even where it allows extras: a known way to smuggle data out. */
function undeclared(schema: unknown, args: unknown, alreadySaid: string): Finding[] {
  if (typeof schema !== 'object' || schema === null || typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  const { properties, patternProperties } = schema as { properties?: unknown; patternProperties?: unknown };
  if (typeof properties !== 'object' || properties === null || patternProperties !== undefined) return [];
  const extra = Object.keys(args).filter((k) => !Object.hasOwn(properties, k) && !alreadySaid.includes(`'${escapeControl(k)}'`));
  if (!extra.length) return [];
  const names =
    extra
      .slice(0, 5)
      .map((k) => `'${escapeControl(k.slice(0, 80))}'`)
      .join(', ') + (extra.length > 5 ? ', …' : '');
  return [
    {
      code: 'undeclared-argument',
      severity: 'warning',
      field: 'arguments',
      message: `The call passes ${extra.length === 1 ? 'a field' : 'fields'} the tool's schema does not declare (${names}); a model can be talked into hiding data in one.`,
      excerpt: names,
    },
  ];
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return '(not JSON)';
  }
}

/** Checks the arguments (loads ajv and compiles the schema the first time). No schema: nothing to say. */
export async function checkSchema(tool: ToolDefinition | undefined, args: unknown, protocolVersion?: string): Promise<SchemaCheck> {
  if (!tool || tool.inputSchema === undefined) return { violated: false, findings: [] };
  return result(await compiled(tool, protocolVersion), tool, args);
}

/**
 * The decision with the check applied: a violation adds its reason, and an automatic allow becomes an
 * ask (this only adds friction). A denial stays a denial.
 */
export function withSchemaCheck(decision: DecisionResult, check: SchemaCheck, ctx: ReasonContext): DecisionResult {
  if (!check.violated || decision.outcome === 'deny') return decision;
  const reasons = bySeverity([...decision.reasons, reason('schema-violation', ctx)]);
  return decision.outcome === 'allow' ? { ...decision, outcome: 'ask', decidedBy: 'policy', reasons, preview: true } : { ...decision, reasons };
}
