// `connect`'s check of a leased call's arguments against the tool's inputSchema, with the validator
// the broker compiled (schema-export.ts): ajv's generated code, which needs only ajv's small runtime
// helpers, never ajv itself. A call that breaks the schema, or one with no validator here, asks the broker.
import { createRequire } from 'node:module';

type Validate = (data: unknown) => boolean;

/** The only modules ajv's standalone code for JSON Schema (not JTD, no re2, no formats) may require. */
const RUNTIME = new Set(['ajv/dist/runtime/equal', 'ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/uri', 'ajv/dist/runtime/validation_error']);
const MAX_KEPT = 512;

let loadModule: NodeJS.Require | undefined;

function runtimeRequire(name: string): unknown {
  if (!RUNTIME.has(name)) throw new Error(`the schema check asked for '${name}'`);
  loadModule ??= createRequire(import.meta.url);
  return loadModule(name);
}

export class LeaseChecks {
  private readonly validators = new Map<string, Validate>();

  /** Takes the lease's check (compiling its code the first time): false when it cannot be used. */
  accept(schema: { key: string; code?: string }): boolean {
    if (this.validators.has(schema.key)) return true;
    if (schema.code === undefined) return false;
    let validate: Validate;
    try {
      const module: { exports: unknown } = { exports: {} };
      // The broker's ajv wrote this code from the schema; it runs here as ajv would have run it.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiling that code is the point
      const load = new Function('module', 'exports', 'require', schema.code) as (m: typeof module, e: unknown, r: typeof runtimeRequire) => void;
      load(module, module.exports, runtimeRequire);
      if (typeof module.exports !== 'function') return false;
      validate = module.exports as Validate;
    } catch {
      return false;
    }
    if (this.validators.size >= MAX_KEPT) this.validators.delete(this.validators.keys().next().value!);
    this.validators.set(schema.key, validate);
    return true;
  }

  /** Whether the arguments pass the schema of `key`; false when that check is not here. */
  passes(key: string, args: unknown): boolean {
    const validate = this.validators.get(key);
    if (!validate) return false;
    try {
      // MCP arguments are an object; a call without them is checked as {}.
      return validate(args === undefined ? {} : args) === true;
    } catch {
      return false;
    }
  }
}
