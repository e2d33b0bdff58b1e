// The check a lease carries to `connect`: the validator schema-check.ts compiled for the broker's own
// check, written out by ajv as standalone code (ajv's code generation is built to be safe against code
// injection from untrusted schemas), so `connect` checks each leased call without loading ajv itself.
// One compile per schema serves both; the code is written once per schema.
import type { ValidateFunction } from 'ajv';
import type { ToolDefinition } from '../../../shared/tool.js';
import { compiledSchema, dialectOf, schemaKey, type Compiler } from './schema-check.js';

/** What `connect` checks a leased call's arguments with; `code` is a CommonJS module exporting the validator. */
export interface LeaseSchema {
  key: string;
  code: string;
}

type Exported = { ok: true; schema: LeaseSchema } | { ok: false };
type Standalone = (ajv: Compiler, v: ValidateFunction) => string;

const MAX_CACHED = 512;
const cache = new Map<string, Exported>();
let standalone: Promise<Standalone> | undefined;

function loadStandalone(): Promise<Standalone> {
  standalone ??= import('ajv/dist/standalone/index.js').then((mod) => ((mod as { default?: unknown }).default ?? mod) as Standalone);
  return standalone;
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
  const compiled = await compiledSchema(schema, dialect, key);
  let out: Exported = { ok: false };
  // A schema ajv cannot compile: schema-check.ts reports it as a finding; `connect` could not check
  // its calls, so it gets no lease and every call is decided by the broker.
  if (compiled.ok) {
    const write = await loadStandalone();
    try {
      out = { ok: true, schema: { key, code: write(compiled.compiler, compiled.validate) } };
    } catch {
      out = { ok: false };
    }
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, out);
  return out.ok ? out.schema : undefined;
}
