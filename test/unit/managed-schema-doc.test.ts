// docs/managed-policy.schema.json is generated from the one schema (shared/managed-policy-schema.ts) with
// zod-to-json-schema: this fails when they drift. Regenerate with
// COUNTERSIGN_WRITE_SCHEMA=1 npx vitest run test/unit/managed-schema-doc.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { managedPolicySchema } from '../../shared/managed-policy-schema.js';

const FILE = join(import.meta.dirname, '../../docs/managed-policy.schema.json');

describe('the managed policy JSON Schema in docs', () => {
  it('is the one generated from shared/managed-policy-schema.ts', () => {
    const generated =
      JSON.stringify(
        { ...zodToJsonSchema(managedPolicySchema, { $refStrategy: 'none', target: 'jsonSchema7' }), title: 'Countersign managed policy' },
        null,
        2,
      ) + '\n';
    if (process.env.COUNTERSIGN_WRITE_SCHEMA) writeFileSync(FILE, generated);
    // Compared as data: the file is formatted by prettier.
    expect(JSON.parse(readFileSync(FILE, 'utf8'))).toEqual(JSON.parse(generated));
  });
});
