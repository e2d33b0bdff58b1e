// The check a lease carries to `connect`: the tool's inputSchema compiled here by ajv into standalone
// validation code (ajv's code generation is built to be safe against code injection from untrusted
// schemas), so `connect` checks each leased call without loading ajv itself. Compiled once per schema.
import type { ValidateFunction } from 'ajv';
import type { ToolDefinition } from '../../shared/tool.js';
import { ajvPerDialect, dialectOf, schemaKey, type Dialect } from './schema-check.js';

/** What `connect` checks a leased call's arguments with; `code` is a CommonJS module exporting the validator. */
export interface LeaseSchema {
  key: string;
  code: string;
}

interface Exporter {
  compile(schema: object): ValidateFunction;
  removeSchema(schema: object): unknown;
}

type Exported = { ok: true; schema: LeaseSchema } | { ok: false };

const MAX_CACHED = 512;
const cache = new Map<string, Exported>();
let exporters: Promise<{ ajv: Record<Dialect, Exporter>; standalone: (ajv: Exporter, v: ValidateFunction) => string }> | undefined;

function load(): NonNullable<typeof exporters> {
  exporters ??= (async () => {
    const [ajv, standalone] = await Promise.all([
      // As schema-check.ts, but the first error is enough: `connect` only needs valid or not.
      ajvPerDialect<Exporter>({ code: { source: true }, allErrors: false, strict: false, validateFormats: false, logger: false }),
      import('ajv/dist/standalone/index.js'),
    ]);
    const gen = ((standalone as { default?: unknown }).default ?? standalone) as (ajv: Exporter, v: ValidateFunction) => string;
    return { ajv, standalone: gen };
  })();
  return exporters;
}

/**
 * The check for leased calls of `tool`: null when the tool has no schema to check; undefined when
 * its schema cannot be compiled or exported, so `connect` cannot check it and must not get a lease.
 */
export async function leaseSchema(tool: ToolDefinition | undefined, protocolVersion?: string): Promise<LeaseSchema | null | undefined> {
  const schema = tool?.inputSchema;
  if (schema === undefined) return null;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  const dialect = dialectOf(schema, protocolVersion);
  let key: string;
  try {
    key = schemaKey(schema, dialect);
  } catch {
    return undefined;
  }
  const hit = cache.get(key);
  if (hit) return hit.ok ? hit.schema : undefined;
  const { ajv, standalone } = await load();
  const exporter = ajv[dialect];
  let out: Exported;
  try {
    out = { ok: true, schema: { key, code: standalone(exporter, exporter.compile(schema)) } };
  } catch {
    // Unusable here: schema-check.ts reports a broken schema as a finding; either way `connect` could
    // not check the calls, so it gets no lease and every call is decided by the broker.
    out = { ok: false };
  } finally {
    // The code is kept here; ajv's own copy would only grow with every listing.
    exporter.removeSchema(schema);
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, out);
  return out.ok ? out.schema : undefined;
}
