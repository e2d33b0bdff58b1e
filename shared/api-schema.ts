// Argument schemas for every API method. Each bridge (HTTP, Electron IPC) validates with these
// before anything reaches the broker. zod is pure, so this stays usable on both sides.
import { z } from 'zod';
import type { ApiMethod } from './api.js';
import type { Rule } from './decision.js';
import type { LimitsProfile } from './limits.js';
import { CLIENT_IDS } from './clients.js';
import { MAX_RULE_MINUTES } from './rules.js';
import { limitsSchema, serverConfigSchema, serverNameSchema, settingsPatchSchema } from './config-schema.js';

const serverName = serverNameSchema;

export const decisionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('allow-once') }).strict(),
  z.object({ kind: z.literal('allow-session') }).strict(),
  z.object({ kind: z.literal('always-allow') }).strict(),
  z
    .object({
      kind: z.literal('allow-rule'),
      rule: z
        .object({
          scope: z.discriminatedUnion('kind', [
            z.object({ kind: z.literal('tool') }).strict(),
            z.object({ kind: z.literal('under'), dir: z.string().min(1).max(4096) }).strict(),
            z.object({ kind: z.literal('same-target') }).strict(),
            z.object({ kind: z.literal('exact') }).strict(),
          ]),
          lifetime: z.discriminatedUnion('kind', [
            z.object({ kind: z.literal('minutes'), minutes: z.number().int().min(1).max(MAX_RULE_MINUTES) }).strict(),
            z.object({ kind: z.literal('session') }).strict(),
            z.object({ kind: z.literal('always') }).strict(),
          ]),
          coversExfiltration: z.boolean().optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ kind: z.literal('deny'), reason: z.string().max(2000).optional() }).strict(),
]);

/** A saved rule as settings.json holds it (session rules live in memory only, so `session` is never stored). */
export const storedRuleSchema = z
  .object({
    id: z.string().min(1),
    server: z.string(),
    tool: z.string().min(1),
    action: z.literal('allow'),
    createdAt: z.string(),
    scope: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('tool') }).strict(),
        z.object({ kind: z.literal('under'), dir: z.string().min(1), keys: z.array(z.string()) }).strict(),
        z.object({ kind: z.literal('same-target'), targets: z.array(z.object({ key: z.string(), path: z.string() }).strict()).min(1) }).strict(),
        z.object({ kind: z.literal('exact'), arguments: z.string() }).strict(),
      ])
      .optional(),
    expiresAt: z.string().optional(),
    coversExfiltration: z.boolean().optional(),
    definitionHash: z.string().optional(),
  })
  .strict();
// Rule (decision.ts) and LimitsProfile (limits.ts) are written out there for the pure decision code;
// these lines keep the schemas and those types from drifting apart (tsc fails if they do).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameRule: Same<z.infer<typeof storedRuleSchema>, Omit<Rule, 'session'>> = true;
const sameLimits: Same<z.infer<typeof limitsSchema>, LimitsProfile> = true;
void sameRule;
void sameLimits;

export const logQuerySchema = z
  .object({
    server: z.string().max(200).optional(),
    tool: z.string().max(500).optional(),
    decision: z.enum(['allow', 'deny']).optional(),
    search: z.string().max(2000).optional(),
    limit: z.number().int().min(1).max(100_000).optional(),
  })
  .strict();

const id = z.string().min(1).max(200);
/** A sha256 as the views show it: what the person saw, passed back with their decision. */
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex, as shown in the view');
const seenServer = z.object({ launchHash: sha256, listingHash: sha256.optional() }).strict();
const toolName = z.string().min(1).max(500);
const reviewedTools = z.array(z.object({ name: toolName, hash: sha256.optional() }).strict()).max(10_000);
const reviewAction = z.enum(['accept', 'reject']);

const clientId = z.enum(CLIENT_IDS);
const scanOptions = z.object({ project: z.string().min(1).max(4096).optional() }).strict();
const wrapOptions = scanOptions.extend({ only: z.array(z.string().min(1).max(500)).min(1).max(1000).optional() }).strict();
const planHash = z.string().regex(/^[0-9a-f]{64}$/, 'a plan hash from the preview');

const unsealedRef = z.union([
  z.object({ kind: z.enum(['trust', 'launch', 'rule']), server: serverName, hash: sha256, ruleId: id.optional() }).strict(),
  z.object({ kind: z.literal('policy'), server: z.literal('*'), hash: sha256 }).strict(),
]);

const undoTarget = z.union([
  z.object({ seq: z.number().int().min(1) }).strict(),
  z.object({ snapshot: z.string().regex(/^[0-9a-f]{16}$/, 'a snapshot id from listUndoable') }).strict(),
  z
    .object({
      client: z.string().min(1).max(500).optional(),
      session: z.string().min(1).max(500).optional(),
      server: serverName.optional(),
      since: z.string().min(1).max(100).optional(),
    })
    .strict(),
]);

/** Positional arguments of each method, as a tuple. */
export const apiArgs = {
  getStatus: z.tuple([]),
  listPending: z.tuple([]),
  listLaunchRequests: z.tuple([]),
  decide: z.tuple([id, decisionSchema]),
  listServers: z.tuple([]),
  addServer: z.tuple([serverName, serverConfigSchema]),
  removeServer: z.tuple([serverName]),
  setTrust: z.union([z.tuple([serverName, z.literal(false)]), z.tuple([serverName, z.literal(true), seenServer])]),
  listRules: z.tuple([]),
  removeRule: z.tuple([id]),
  updateRule: z.tuple([
    id,
    z
      .object({
        expiresAt: z.union([z.string().datetime({ offset: true }), z.null()]).optional(),
        coversExfiltration: z.boolean().optional(),
      })
      .strict(),
  ]),
  getSettings: z.tuple([]),
  updateSettings: z.tuple([settingsPatchSchema]),
  queryLog: z.tuple([logQuerySchema]),
  listChanges: z.tuple([]),
  reviewChanges: z.union([
    z.tuple([serverName, z.literal('reject')]),
    z.tuple([serverName, reviewAction, reviewedTools]),
    z.tuple([serverName, reviewAction, reviewedTools, sha256]),
  ]),
  pinServer: z.tuple([serverName, seenServer]),
  unpinServer: z.tuple([serverName]),
  approveLaunch: z.tuple([serverName, sha256]),
  setLimits: z.union([z.tuple([serverName, limitsSchema]), z.tuple([serverName, limitsSchema, sha256])]),
  setRunWithoutLimits: z.union([z.tuple([serverName, z.literal(false)]), z.tuple([serverName, z.literal(true), sha256])]),
  importServers: z.tuple([z.record(z.string().max(200), z.unknown())]),
  setPaused: z.tuple([z.boolean()]),
  readFileForPreview: z.tuple([z.string().min(1).max(10_000)]),
  listClients: z.union([z.tuple([]), z.tuple([scanOptions])]),
  previewWrap: z.tuple([clientId, wrapOptions]),
  wrapClient: z.tuple([clientId, wrapOptions, planHash]),
  previewUnwrap: z.tuple([clientId, scanOptions]),
  unwrapClient: z.union([z.tuple([clientId, scanOptions]), z.tuple([clientId, scanOptions, planHash])]),
  listUnsealed: z.tuple([]),
  confirmUnsealed: z.tuple([unsealedRef]),
  discardUnsealed: z.tuple([unsealedRef]),
  runDoctor: z.union([z.tuple([]), z.tuple([scanOptions])]),
  listInlineApproval: z.tuple([]),
  setInlineApproval: z.tuple([z.string().min(1).max(200), z.boolean()]),
  listUndoable: z.tuple([]),
  previewUndo: z.tuple([undoTarget]),
  undo: z.union([z.tuple([undoTarget, sha256]), z.tuple([undoTarget, sha256, z.object({ confirmConflicts: z.boolean().optional() }).strict()])]),
} satisfies Record<ApiMethod, z.ZodTypeAny>;

export const API_METHODS = Object.keys(apiArgs) as ApiMethod[];

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(apiArgs, name);
}

/** Methods whose arguments carry what the person saw: a refusal says how to call them. */
const USAGE: Partial<Record<ApiMethod, string>> = {
  approveLaunch: "approveLaunch(name, launchHash) takes launch.hash from the server's view: the command the person saw",
  setTrust: "setTrust(name, true, { launchHash, listingHash? }) takes launch.hash and listingHash from the server's view; setTrust(name, false) needs nothing",
  pinServer: "pinServer(name, { launchHash, listingHash? }) takes launch.hash and listingHash from the server's view",
  setLimits: "setLimits(name, { network, filesystem, passEnv }, launchHash?) takes launch.hash from the server's view to approve looser limits",
  setRunWithoutLimits: "setRunWithoutLimits(name, true, launchHash) takes launch.hash from the server's view; setRunWithoutLimits(name, false) needs nothing",
  confirmUnsealed: 'confirmUnsealed({ kind, server, hash, ruleId? }) takes an entry of listUnsealed as shown',
  reviewChanges:
    "reviewChanges(server, 'accept', [{ name, hash }…], identityHash?) takes each change's hash from listChanges; reviewChanges(server, 'reject', [{ name }…]?) needs none",
};

/** The most telling issue: inside a union, the branch that got furthest. */
function firstIssue(issues: z.ZodIssue[]): z.ZodIssue | undefined {
  const issue = issues[0];
  if (issue?.code !== 'invalid_union') return issue;
  const branches = issue.unionErrors.map((e) => firstIssue(e.issues)).filter((i): i is z.ZodIssue => i !== undefined);
  return branches.reduce<z.ZodIssue | undefined>((best, i) => (!best || i.path.length >= best.path.length ? i : best), undefined) ?? issue;
}

/** Validates a call's arguments; returns an error sentence or the parsed tuple. */
export function parseApiArgs(method: ApiMethod, args: unknown): { ok: true; args: unknown[] } | { ok: false; error: string } {
  const parsed = apiArgs[method].safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data };
  const first = firstIssue(parsed.error.issues);
  const usage = USAGE[method] ? ` (${USAGE[method]})` : '';
  return { ok: false, error: `invalid arguments for ${method}: ${first ? `${first.path.join('.') || 'arguments'}: ${first.message}` : 'rejected'}${usage}` };
}
