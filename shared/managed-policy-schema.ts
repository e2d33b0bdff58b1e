// The managed policy: the file an organization deploys to an OS-managed path (policy/managed-paths.ts)
// and that outranks the user's policy and settings. It is the user policy's schema (servers, block,
// alwaysAsk) plus what only an organization may say: a catalogue of reviewed servers, restrictions, and
// where the audit log is exported. Every restriction carries the reason the organization gives, which
// the UI, CLI and status show beside it. The one definition: policy check, the loader and docs/admin.md
// (its JSON Schema is generated from this) all read it.
import { z } from 'zod';
import { auditExportSchema } from './audit-export-schema.js';
import { limitsSchema } from './config-schema.js';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, '64 lowercase hex digits (a sha256)');
const reason = z.string().min(1).max(1000);

/** The user policy's part: the same keys and meaning as a team policy file (docs/policy.md). */
export const teamPolicyShape = {
  version: z.literal(1),
  servers: z
    .record(
      z
        .object({
          /** The exact command line the team reviewed: a launch of another command is refused. */
          command: z.array(z.string()).min(1).optional(),
          /** The limits the team reviewed it with: a launch with looser limits is refused. */
          limits: limitsSchema.optional(),
          pin: z
            .object({
              version: z.string().optional(),
              definitionsHash: hex64.optional(),
              package: z.string().optional(),
            })
            .strict()
            .optional(),
        })
        .strict(),
    )
    .default({}),
  block: z.array(z.string()).default([]),
  alwaysAsk: z.array(z.object({ server: z.string(), tool: z.string() }).strict()).default([]),
};
export const teamPolicySchema = z.object(teamPolicyShape).strict();
export type TeamPolicy = z.infer<typeof teamPolicySchema>;

/**
 * What a catalogue entry says runs. Exactly one of: the command line; an npm package (run through npx or
 * an installed copy) with its registry `dist.integrity` and/or the installed content hash
 * (trust/packages/package-hash.ts); a PyPI distribution (uvx/pipx) with its file hashes; a docker image
 * by digest; or a remote server by its exact URL (nothing of it runs here: only its address is held).
 */
export const catalogueSourceSchema = z.union(
  [
    z.object({ command: z.array(z.string().min(1)).min(1) }).strict(),
    z.object({ url: z.string().url().max(2000) }).strict(),
    z
      .object({
        npm: z
          .object({
            name: z.string().min(1).max(214),
            version: z.string().min(1).max(100),
            integrity: z
              .string()
              .regex(/^sha512-[A-Za-z0-9+/]+={0,2}$/, "npm's dist.integrity (sha512-…)")
              .optional(),
            /** The installed files' hash as Countersign computes it (`countersign policy hash DIR`, a pin's content). */
            contentHash: z
              .string()
              .regex(/^sha256:[0-9a-f]{64}$/, 'a content hash (sha256:… as `countersign policy hash` prints it)')
              .optional(),
          })
          .strict()
          .refine((p) => p.integrity !== undefined || p.contentHash !== undefined, 'an npm entry needs integrity, contentHash or both'),
      })
      .strict(),
    z
      .object({
        pypi: z
          .object({
            name: z.string().min(1).max(200),
            version: z.string().min(1).max(100),
            /**
             * sha256 of each file (wheel or sdist) of that version the organization reviewed. Every file PyPI
             * serves for the version must be one of them: uv or pipx pick the file, so an unreviewed one added
             * later is a mismatch.
             */
            sha256: z.array(hex64).min(1),
          })
          .strict(),
      })
      .strict(),
    z
      .object({
        docker: z
          .object({
            image: z.string().min(1).max(500),
            digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'an image digest (sha256:…)'),
          })
          .strict(),
      })
      .strict(),
  ],
  // No option fits: say what a source is, not zod's "Invalid input".
  {
    errorMap: (issue, ctx) => ({
      message: issue.code === 'invalid_union' ? 'a source is one of {command}, {url}, {npm}, {pypi} or {docker}' : ctx.defaultError,
    }),
  },
);

export const catalogueEntrySchema = z
  .object({
    /** The server's name in the catalogue (shown to the person); a configured server matches by what runs, not by name. */
    name: z.string().min(1).max(200),
    source: catalogueSourceSchema,
    /** The hash of the reviewed tool definitions (the same listing hash a pin records). */
    definitionsHash: hex64.optional(),
    /** The limits it must run with, or tighter. */
    limits: limitsSchema.optional(),
    reason: reason.optional(),
  })
  .strict();
export type CatalogueEntry = z.infer<typeof catalogueEntrySchema>;

// Where the audit log is exported: one definition, shared with the person's settings.
export { auditExportSchema, type AuditExportDestination } from './audit-export-schema.js';

const withReason = { reason };
export const restrictionsSchema = z
  .object({
    /** Only servers that match a catalogue entry may run. */
    onlyCatalogue: z.object(withReason).strict().optional(),
    /** Servers that may not run, by name, package or command (glob patterns: * and ?). */
    deny: z
      .array(
        z
          .object({
            name: z.string().min(1).optional(),
            package: z.string().min(1).optional(),
            command: z.string().min(1).optional(),
            ...withReason,
          })
          .strict()
          .refine((d) => d.name ?? d.package ?? d.command, 'a deny entry names a name, package or command pattern'),
      )
      .default([]),
    /** Every server outside the catalogue runs with these limits or tighter. */
    minimumLimits: z
      .object({ limits: limitsSchema, ...withReason })
      .strict()
      .optional(),
    /** `none`: no rule may allow a call without asking; `not-exfiltration`: no rule may cover the exfiltration guard. */
    alwaysAllow: z
      .object({ allowed: z.enum(['none', 'not-exfiltration']), ...withReason })
      .strict()
      .optional(),
    /** Approval inside the MCP client is turned off for every client. */
    inlineApprovalOff: z.object(withReason).strict().optional(),
    /** The longest a call may wait for the person (caps approvalTimeoutSeconds). */
    maxApprovalTimeout: z
      .object({ seconds: z.number().int().min(1).max(86_400), ...withReason })
      .strict()
      .optional(),
    /** The audit export cannot be turned off or pointed elsewhere by the person (the destination is `auditExport`). */
    auditExportRequired: z.object(withReason).strict().optional(),
  })
  .strict();
export type Restrictions = z.infer<typeof restrictionsSchema>;

export const managedPolicySchema = z
  .object({
    ...teamPolicyShape,
    catalogue: z.array(catalogueEntrySchema).default([]),
    restrictions: restrictionsSchema.default({ deny: [] }),
    auditExport: auditExportSchema.optional(),
  })
  .strict()
  .refine((p) => !p.restrictions.auditExportRequired || p.auditExport !== undefined, {
    message: 'restrictions.auditExportRequired needs auditExport',
    path: ['auditExport'],
  });
export type ManagedPolicy = z.infer<typeof managedPolicySchema>;
