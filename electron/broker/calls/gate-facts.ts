// Step 1 of deciding a call: every fact the decision reads, read once, at one moment, into plain data
// (gate-decision.ts decides over it; call-gate.ts acts). Trust is read in one call (TrustManager.callView).
// What only an asked call needs (its card's findings and file facts) is gathered once it is known to ask.
import type { Finding } from '../../../shared/findings.js';
import type { Rule } from '../../../shared/decision.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { CallFacts, EnforcedFacts as CardFacts } from '../../../shared/call-facts.js';
import type { CallInput } from '../../../shared/api.js';
import { enforcedFacts, type EnforcedFacts, type LimitsInForce } from '../../../shared/enforced-limits.js';
import { escapeControl } from '../../../shared/escape.js';
import type { ProtectedMatch } from '../../../shared/protected-paths.js';
import { checkSchema, type SchemaCheck } from '../checks/schema-check.js';
import { findProtected, type ProtectScope } from '../checks/self-protection.js';
import { definitionHashSync } from '../trust/definition-tracker.js';
import type { CallBlock, CallTrust } from '../trust/call-view.js';
import { gatherFacts, type ReadHistory } from './call-facts.js';
import type { GateSession, ToolCallContext } from './gate-contract.js';

/** What deciding reads of trust: one view per call, and the findings for an asked call's card. */
export interface GateTrust {
  callView(server: string, tool: ToolDefinition | undefined, name: string): CallTrust;
  callFindings(
    server: string,
    tool: ToolDefinition | undefined,
    args: unknown,
    listings: Map<string, ToolDefinition[]>,
  ): Promise<{ identity: Finding[]; tool: Finding[]; arguments: Finding[] }>;
  /** A person approved a call: the first approval records what the server looked like then. */
  onPersonApproved(server: string, tools: ToolDefinition[] | undefined): void;
}

export interface FactSources {
  trust: GateTrust;
  isTrusted(server: string): boolean;
  rules(): Rule[];
  paused(): boolean;
  /** Shared by every session of one client, so a local read in one makes a send in another ask. */
  history(clientKey: string): ClientHistory;
  /** Why no call may run now at all (the audit log cannot be written), or undefined. */
  refuse?(): string | undefined;
  /** Countersign's own files and the clients' configs, as this server would name them (its folder). */
  protectScope(server: string): ProtectScope;
  /** The limits the session's server process started under, and how they stand (none known: none). */
  limitsOf?(session: GateSession): LimitsInForce | undefined;
  /** The home folder, to show paths in it as ~. */
  home?(): string;
}

/** What the policy decides over (gate-decision.ts), and what acting on it needs. Plain data. */
export interface DecisionFacts {
  /** Trusted by the person, or by the organization (an exact catalogue match the person did not untrust). */
  trusted: boolean;
  /** Why it counts as trusted when the person did not trust it: for the log. */
  trustedBy?: string;
  /** The tool as the server last listed it; undefined when it never listed it. */
  tool: ToolDefinition | undefined;
  arguments: unknown;
  rules: readonly Rule[];
  sessionId: string;
  /** For rules that expire. */
  now: number;
  /** Only when a rule of this tool was bound to a definition (hashing costs a canonical JSON). */
  definitionHash?: string;
  /** A copy: what the session allowed when the call came. */
  allowedTools: ReadonlySet<string>;
  /** This client read local data before (the exfiltration guard). */
  hasReadLocalData: boolean;
  paused: boolean;
  /** The team policy says this tool always asks. */
  policyAlwaysAsk: boolean;
  /** Who allowed the call this one continues (a retry carrying input), if any. */
  earlierBy?: CallInput['earlier'];
  scope: ProtectScope;
  protectedMatches: ProtectedMatch[];
  /** Only what the sandbox of this very process enforces: never the limits merely asked for. */
  enforced?: EnforcedFacts;
  schema: SchemaCheck;
  protocolVersion?: string;
  /** The session reuses automatic allows under a lease (relay mode's `connect`). */
  takesLeases: boolean;
}

interface Called {
  server: string;
  toolName: string;
}
export type GateFacts =
  /** The log cannot be written: nothing else is read. */
  | (Called & { refused: string })
  /** Blocked, quarantined or held: the (unreviewed) definition's schema is never compiled. */
  | (Called & { block: CallBlock })
  /** `history`: the client's own record (not a copy), which acting on the call updates. */
  | (Called & { call: DecisionFacts; history: ClientHistory });

export type ClientHistory = { readLocalData: boolean } & ReadHistory;

export async function gatherCallFacts(ctx: ToolCallContext, src: FactSources, now: number): Promise<GateFacts> {
  const { session, toolName } = ctx;
  const server = session.serverName;
  const refused = src.refuse?.();
  if (refused) return { server, toolName, refused };
  const tool = await session.toolDefinition(toolName).catch(() => undefined);
  // From here to the schema check, one synchronous read: every fact is of the same moment.
  const trust = src.trust.callView(server, tool, toolName);
  if (trust.block) return { server, toolName, block: trust.block };
  const history = src.history(session.clientKey);
  const running = src.limitsOf?.(session);
  const scope = src.protectScope(server);
  const rules = src.rules();
  const bound = rules.some((r) => r.definitionHash && r.server === server && r.tool === toolName);
  const byPerson = src.isTrusted(server);
  const call: Omit<DecisionFacts, 'schema'> = {
    trusted: byPerson || trust.organization !== undefined,
    ...(!byPerson && trust.organization !== undefined ? { trustedBy: `trusted by your organization: catalogue entry ${trust.organization}` } : {}),
    tool,
    arguments: ctx.arguments,
    rules,
    sessionId: session.id,
    now,
    definitionHash: bound && tool ? definitionHashSync(tool) : undefined,
    allowedTools: new Set(session.allowedTools),
    hasReadLocalData: history.readLocalData,
    paused: src.paused(),
    policyAlwaysAsk: trust.alwaysAsk,
    earlierBy: ctx.input?.earlier,
    scope,
    protectedMatches: findProtected(ctx.arguments, scope),
    enforced: running ? enforcedFacts(running, src.home?.()) : undefined,
    protocolVersion: trust.protocolVersion,
    takesLeases: session.takesLeases === true,
  };
  return { server, toolName, history, call: { ...call, schema: await checkSchema(tool, ctx.arguments, trust.protocolVersion) } };
}

/** Gathered again after a person's wait: the approval was for the tool as it was then. */
export async function gatherLateBlock(ctx: ToolCallContext, src: Pick<FactSources, 'trust'>): Promise<CallBlock | undefined> {
  const now = await ctx.session.toolDefinition(ctx.toolName).catch(() => undefined);
  return src.trust.callView(ctx.session.serverName, now, ctx.toolName).block;
}

/** What an asked call's card shows beyond the decision: findings, the files it names, earlier reads. */
export async function gatherCardFacts(
  ctx: ToolCallContext,
  facts: DecisionFacts,
  history: ReadHistory,
  src: Pick<FactSources, 'trust'> & { listings(): Map<string, ToolDefinition[]> },
): Promise<{ findings: Finding[]; facts: CallFacts }> {
  const server = ctx.session.serverName;
  const found = await src.trust.callFindings(server, facts.tool, ctx.arguments, src.listings());
  const findings = [
    ...protectedFindings(facts.protectedMatches),
    // Who asks: a server that takes another's name is flagged on its cards, not only on the Servers screen.
    ...found.identity,
    ...found.tool,
    ...facts.schema.findings,
    ...found.arguments,
  ];
  // Only what this server's sandbox enforces is stated as a fact on the card.
  return { findings, facts: { ...(await gatherFacts(ctx.toolName, ctx.arguments, history)), enforced: cardFacts(facts.enforced) } };
}

/** Self-protection on the call's card: which argument names what. */
function protectedFindings(matches: ProtectedMatch[]): Finding[] {
  return matches.slice(0, 10).map((m) => ({
    code: 'protected-path',
    severity: m.kind === 'ancestor' ? 'warning' : 'danger',
    message:
      m.kind === 'runs'
        ? `An argument runs ${m.what}${m.root ? ` (${escapeControl(m.root)})` : ''}: it could approve, trust or change what Countersign allows. Countersign always asks before such a call.`
        : m.kind === 'inside'
          ? `An argument names ${m.what}${m.root ? ` (${escapeControl(m.root)})` : ''}. Countersign always asks before a call touches it.`
          : `An argument names a folder that holds ${m.what} (${escapeControl(m.root)}).`,
    excerpt: escapeControl(m.text.slice(0, 300)),
  }));
}

function cardFacts(enforced: EnforcedFacts | undefined): CardFacts | undefined {
  if (!enforced || (!enforced.noNetwork && !enforced.readOnlyFiles)) return undefined;
  return { noNetwork: enforced.noNetwork, readOnlyFiles: enforced.readOnlyFiles, by: 'the sandbox' };
}
