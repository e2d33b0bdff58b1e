// The data schemas of server configs, limits and settings: the one definition that the API's argument
// checks (api-schema.ts), the settings store and the API's types (api.ts) all use. A leaf: it imports
// nothing from the other shared modules but the leaf audit-export-schema.ts, so api.ts and api-schema.ts
// can both depend on it.
import { z } from 'zod';
import { auditExportSchema } from './audit-export-schema.js';

/** A server's name (the API's argument and a key of settings.json's servers). */
export const serverNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a server name: letters, digits, . _ - (max 64)');
const stringMap = z.record(z.string().max(1000), z.string().max(100_000));

const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^\/[^\0]*$/, 'an absolute path');
export const limitsSchema = z
  .object({
    network: z.enum(['none', 'unrestricted']),
    filesystem: z.union([z.literal('host'), z.object({ read: z.array(absolutePath).max(200), write: z.array(absolutePath).max(200) }).strict()]),
    passEnv: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name')
          .max(200),
      )
      .max(200),
    /** Network variables it does not get (network-env.ts); `*`: none of them. */
    noPassEnv: z
      .array(
        z
          .string()
          .regex(/^([A-Za-z_][A-Za-z0-9_]*|\*)$/, 'a variable name, or *')
          .max(200),
      )
      .max(200)
      .optional(),
  })
  .strict();

/** An http: or https: URL. The prefix test refuses what URL() would quietly trim (spaces). */
export function isHttpUrl(text: string): boolean {
  if (!/^https?:/i.test(text)) return false;
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** The name of a placeholder a client fills at launch: the text inside `${…}`, e.g. `input:api-key`. */
export const FILL_NAME = /^[A-Za-z][A-Za-z0-9_.:-]{0,199}$/;
export const MAX_FILLS = 32;
/** The longest value `connect` may pass for one placeholder. */
export const MAX_FILL_VALUE = 4096;

/** A server's launch config: the one definition (the API's arguments and the settings store use it). */
export const stdioConfigSchema = z
  .object({
    command: z.string().min(1).max(10_000),
    args: z.array(z.string().max(100_000)).max(1000).optional(),
    env: stringMap.optional(),
    cwd: z.string().max(10_000).optional(),
    limits: limitsSchema.optional(),
    /**
     * Placeholders (`${name}`, kept as written in command, args, cwd and env) that the client fills when it
     * starts `countersign connect`, which passes the values on (trust/launch-fill.ts). Only these are filled.
     */
    fills: z.array(z.string().regex(FILL_NAME)).min(1).max(MAX_FILLS).optional(),
  })
  .strict();
export const remoteConfigSchema = z
  .object({
    url: z.string().max(10_000).refine(isHttpUrl, 'must be an http: or https: URL'),
    headers: stringMap.optional(),
  })
  .strict();
export const serverConfigSchema = z.union([stdioConfigSchema, remoteConfigSchema]);

/** The broker's settings (the one definition: `Settings` in api.ts is inferred from it). */
export const settingsSchema = z
  .object({
    approvalTimeoutSeconds: z.number().int().min(1).max(86_400),
    upstreamTimeoutSeconds: z.number().int().min(1).max(86_400),
    theme: z.enum(['system', 'light', 'dark']),
    /**
     * The user's team policy file, as the person set it in Countersign (sealed: a path written here by hand
     * is ignored until confirmed). COUNTERSIGN_POLICY overrides it.
     */
    policyPath: z.string().min(1).max(4096).optional(),
    /** Undo snapshots: the store's size (MB) and age (days) limits, and the largest file kept (MB). */
    undoMaxMB: z.number().int().min(1).max(1_000_000).optional(),
    undoMaxDays: z.number().int().min(1).max(3650).optional(),
    undoMaxFileMB: z.number().int().min(1).max(100_000).optional(),
    /** Where the audit log is exported, when the managed policy names no destination (audit-export-schema.ts). */
    auditExport: auditExportSchema.optional(),
  })
  .strict();
/** A change of settings; `policyPath: null` removes the team policy file. */
export const settingsPatchSchema = settingsSchema
  .partial()
  .extend({
    policyPath: z.union([z.string().min(1).max(4096), z.null()]).optional(),
    /** null: no export. A header given as HIDDEN_HEADER keeps the value saved for that name. */
    auditExport: z.union([auditExportSchema, z.null()]).optional(),
  })
  .strict();
