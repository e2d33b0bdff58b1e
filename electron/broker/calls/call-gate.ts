// Decides each tools/call: runs the pure policy, holds asked calls for a person, and logs every call.
import type { Actor, AuditEntry, PendingCall, Settings } from '../../../shared/api.js';
import { decide, readsLocalData } from '../../../shared/decide.js';
import { escapeControl } from '../../../shared/escape.js';
import type { DecidedBy, RefusalCode, Rule } from '../../../shared/decision.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { nestingDepth, MAX_ARGUMENT_DEPTH, TOO_DEEP_ARGUMENTS, tooDeepIn, tooDeepRefusal } from '../checks/argument-checks.js';
import { checkSchema, withSchemaCheck } from '../checks/schema-check.js';
import { leaseSchema } from '../checks/schema-export.js';
import { elapsedMs, monotonicMs } from '../core/clock.js';
import { gatherFacts, rememberRead, type ReadHistory } from './call-facts.js';
import type { NewRule, PendingQueue } from './pending-queue.js';
import { isPlainRule, ruleText } from '../../../shared/rules.js';
import { definitionHashSync } from '../trust/definition-tracker.js';
import { findProtected, type ProtectScope } from '../checks/self-protection.js';
import type { Finding } from '../../../shared/findings.js';
import type { EnforcedFacts as CardFacts } from '../../../shared/call-facts.js';
import type { ProtectedMatch } from '../../../shared/protected-paths.js';
import type { TrustManager } from '../trust/trust-manager.js';
import type { ClientPatience, WaitEnd } from './client-patience.js';
import { offerInline, type InlineApprovalSettings } from './inline-approval.js';
import { enforcedFacts, type LimitsInForce } from '../../../shared/enforced-limits.js';
import { errorResult, type CallOutcome, type GateSession, type GateVerdict, type ToolCallContext } from './gate-contract.js';

export interface GateDeps {
  pending: PendingQueue;
  isTrusted(server: string): boolean;
  rules(): Rule[];
  addRule(server: string, tool: string, actor: Actor, extra?: NewRule): unknown;
  settings(): Settings;
  paused(): boolean;
  /** Shared by every session of one client, so a local read in one makes a send in another ask. */
  history(clientKey: string): { readLocalData: boolean } & ReadHistory;
  /**
   * A call's entry, allowed or denied; it may be written later (group commit) and then says whether it
   * reached the disk. The gate waits for it before the call's answer goes out.
   */
  audit(entry: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>): void | Promise<boolean>;
  /** Countersign's own refusals (arguments it could not handle): written at once, so a failure stays with this entry. */
  auditNow?(entry: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>): void;
  /** A call is about to be forwarded: its entry follows when it ends (audit-batch.ts looks at the log ahead). */
  expectAudit?(): void;
  trust: TrustManager;
  /** Every server's last complete listing, for cross-server findings. */
  listings(): Map<string, ToolDefinition[]>;
  /**
   * The client read local data for the first time: leases that assumed it had not must end, in every
   * process of that client, before the read goes on (its answer could reach the model at once).
   */
  onLocalRead?(clientKey: string): Promise<void> | void;
  /** Countersign's own files and the clients' configs, as this server would name them (its folder). */
  protectScope(server: string): ProtectScope;
  /** Why no call may run now at all (the audit log cannot be written), or undefined. */
  refuse?(): string | undefined;
  /** How long each client is likely to wait (shown on the card), learned from its cancels. */
  patience?: ClientPatience;
  /** Which clients may also answer a pending call in their own form (inline approval). */
  inline?: InlineApprovalSettings;
  /** Where the UI is, for the form's link to the full preview (never with a token). */
  previewUrl?(): string | undefined;
  /** The limits the session's server process started under, and how they stand (none known: none). */
  limitsOf?(session: GateSession): LimitsInForce | undefined;
  /** The home folder, to show paths in it as ~. */
  home?(): string;
}

export class CallGate {
  constructor(private readonly deps: GateDeps) {}

  /** Every call ends in the log: one that could not be decided is refused and logged with why. */
  async decideToolCall(ctx: ToolCallContext): Promise<GateVerdict> {
    // Every part of the call, not only its arguments: the input a retry carries is shown and sent too.
    const deep = ctx.tooDeepIn ?? tooDeepIn(ctx.request.params) ?? (nestingDepth(ctx.input?.supplied) > MAX_ARGUMENT_DEPTH ? 'inputResponses' : undefined);
    if (deep) return this.refuse(ctx, 'arguments-too-deep', tooDeepRefusal(deep), nestingDepth(ctx.arguments) > MAX_ARGUMENT_DEPTH ? TOO_DEEP_ARGUMENTS : ctx.arguments);
    try {
      return await this.decideChecked(ctx);
    } catch (err) {
      const text = `Countersign could not decide this call, so it was not run: ${(err as Error).message}`;
      return this.refuse(ctx, 'undecidable', text, ctx.arguments);
    }
  }

  /** Refused by Countersign itself (not by a rule or a person): logged as decided by policy, with the reason. */
  private refuse(ctx: ToolCallContext, reason: RefusalCode, text: string, loggedArguments: unknown): GateVerdict {
    const entry = {
      time: new Date().toISOString(), server: ctx.session.serverName, tool: ctx.toolName, decision: 'deny' as const,
      decidedBy: 'policy' as const, reasons: [reason], durationMs: 0, status: 'denied' as const, detail: text, client: ctx.session.clientInfo?.name,
    };
    const audit = this.deps.auditNow ?? ((e: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>) => void this.deps.audit(e));
    try {
      audit({ ...entry, arguments: loggedArguments });
    } catch {
      // The arguments themselves may be what broke (the log hashes them): keep the entry without them.
      audit({ ...entry, arguments: { countersign: 'arguments not recorded: they could not be written to the log' } });
    }
    return { forward: false, result: errorResult(text) };
  }

  private async decideChecked(ctx: ToolCallContext): Promise<GateVerdict> {
    const { session } = ctx;
    const server = session.serverName;
    const refused = this.deps.refuse?.();
    if (refused) {
      // Kept with the entries waiting for the log: it is written once the log takes them.
      await this.deps.audit({
        time: new Date().toISOString(), server, tool: ctx.toolName, arguments: ctx.arguments, decision: 'deny',
        decidedBy: 'policy', reasons: [], durationMs: 0, status: 'denied', detail: refused, client: session.clientInfo?.name,
      });
      return { forward: false, result: errorResult(refused) };
    }
    const trusted = this.deps.isTrusted(server);
    const tool = await session.toolDefinition(ctx.toolName).catch(() => undefined);
    const history = this.deps.history(session.clientKey);
    const { trust } = this.deps;
    const block = trust.callBlock(server, tool, ctx.toolName);
    if (block) {
      await this.deps.audit({
        time: new Date().toISOString(), server, tool: ctx.toolName, arguments: ctx.arguments, decision: 'deny',
        decidedBy: 'policy', reasons: [block.code], durationMs: 0, status: 'denied', detail: block.message,
        client: session.clientInfo?.name,
      });
      return { forward: false, result: errorResult(block.message) };
    }
    // Only what the sandbox of this very process enforces: never the limits merely asked for.
    const running = this.deps.limitsOf?.(session);
    const enforced = running ? enforcedFacts(running, this.deps.home?.()) : undefined;
    const limits = enforced && enforced.summary !== 'no limits' ? { limits: enforced.summary } : {};
    const scope = this.deps.protectScope(server);
    const protectedMatches = findProtected(ctx.arguments, scope);
    const rules = this.deps.rules();
    // Hashing the definition costs a canonical JSON: only when a rule of this tool was bound to one.
    const bound = rules.some((r) => r.definitionHash && r.server === server && r.tool === ctx.toolName);
    const decided = decide({
      server: { name: server, trusted },
      tool,
      toolName: ctx.toolName,
      rules,
      arguments: ctx.arguments,
      sessionId: session.id,
      definitionHash: bound && tool ? definitionHashSync(tool) : undefined,
      session: { allowedTools: session.allowedTools, hasReadLocalData: history.readLocalData },
      paused: this.deps.paused(),
      // A continuation of a call a person allowed once is asked again: that yes was for the call as it was
      // shown, not for the input the server then asked for (docs/security.md, "Multi round-trip calls").
      forceAsk: trust.forceAsk(server, ctx.toolName) || ctx.input?.earlier === 'person',
      protectedMatches,
      enforced,
    });
    const protocolVersion = trust.identityOf(server)?.protocolVersion;
    const schema = await checkSchema(tool, ctx.arguments, protocolVersion);
    const decision = withSchemaCheck(decided, schema, { server, tool: ctx.toolName });
    const schemaNote = schema.violated ? { detail: schema.findings[0]!.message } : {};
    const startedAt = Date.now(); // the entry's time
    const started = monotonicMs();
    const reasons = decision.reasons.map((r) => r.code);
    const log = (fields: Pick<AuditEntry, 'decision' | 'decidedBy' | 'status'> & { detail?: string; actor?: Actor }): void | Promise<boolean> => {
      return this.deps.audit({
        time: new Date(startedAt).toISOString(),
        server,
        tool: ctx.toolName,
        arguments: ctx.arguments,
        reasons,
        durationMs: elapsedMs(started),
        client: session.clientInfo?.name,
        ...(fields.decidedBy === 'rule' && decision.rule ? { rule: { id: decision.rule.id, text: ruleText(decision.rule) } } : {}),
        ...limits,
        ...schemaNote,
        ...fields,
      });
    };
    const forward = async (decidedBy: DecidedBy, actor?: Actor, granted: DecidedBy = decidedBy): Promise<GateVerdict> => {
      const hadReadLocal = history.readLocalData;
      // Marked before the call runs: once forwarded, local data may already be on its way to the model.
      if (readsLocalData(decision.hints)) {
        rememberRead(history, server, ctx.toolName, ctx.arguments);
        if (!hadReadLocal) {
          history.readLocalData = true;
          await this.deps.onLocalRead?.(session.clientKey);
        }
      }
      // Only an automatic allow may be reused without asking; a person's yes was for this one call.
      // A scoped, expiring or session rule is checked per call: `connect` may not repeat it by tool name.
      const leasable = session.takesLeases === true && !(decidedBy === 'person' || (decision.rule && !isPlainRule(decision.rule)));
      // `connect` checks each leased call against the schema with this; none it can use: no lease.
      const check = leasable ? await leaseSchema(tool, protocolVersion) : undefined;
      this.deps.expectAudit?.();
      return {
        forward: true,
        retryOnTimeout: trusted && decision.hints.supplied.idempotentHint && decision.hints.idempotentHint && !decision.hints.readOnlyHint,
        onSettled: (outcome: CallOutcome) => log({ decision: 'allow', decidedBy, actor, ...settledFields(outcome) }),
        decidedBy: granted,
        lease: check === undefined ? undefined : {
          decidedBy, reasons, untilLocalRead: !hadReadLocal, protect: { scope, toolOnlyReads: decision.hints.readOnlyHint },
          ...(check ? { schema: check } : {}),
        },
      };
    };

    if (decision.outcome === 'deny') {
      const text = decision.reasons[0]?.message ?? 'Countersign denied this call.';
      await log({ decision: 'deny', decidedBy: 'policy', status: 'denied', detail: text });
      return { forward: false, result: errorResult(text) };
    }
    if (decision.outcome === 'allow') return forward(decision.decidedBy);

    const timeoutMs = this.deps.settings().approvalTimeoutSeconds * 1000;
    const call: Omit<PendingCall, 'id' | 'createdAt' | 'expiresAt'> = {
      server,
      serverTrusted: trusted,
      tool: ctx.toolName,
      title: typeof tool?.title === 'string' ? tool.title : typeof tool?.annotations?.title === 'string' ? tool.annotations.title : undefined,
      arguments: ctx.arguments,
      reasons: decision.reasons,
      hints: decision.hints,
      preview: decision.preview,
      findings: [
        ...protectedFindings(protectedMatches),
        // Who asks: a server that takes another's name is flagged on its cards, not only on the Servers screen.
        ...trust.identityFindingsOf(server),
        ...(tool ? trust.toolFindings(server, tool, this.deps.listings()) : []),
        ...schema.findings,
        ...(await trust.argumentFindings(server, ctx.arguments, this.deps.listings())),
      ],
      client: { ...session.clientInfo, session: session.id },
      ...(ctx.input ? { input: ctx.input } : {}),
      // Only what this server's sandbox enforces is stated as a fact on the card.
      facts: { ...(await gatherFacts(ctx.toolName, ctx.arguments, history)), enforced: cardFacts(enforced) },
      ...limits,
    };
    const { patience } = this.deps;
    const waiting = this.deps.pending.wait(call, {
      timeoutMs, signal: ctx.signal, sendProgress: ctx.sendProgress,
      clientWait: patience && ((createdAt) => patience.estimate(session.clientInfo?.name, createdAt, ctx.progressRequested)),
      // The rule is saved in the decision itself: if the disk refuses it, the person is told and the
      // call keeps waiting (it is never reported as saved, and never released on a rule that is not).
      commit: (resolution) => {
        if (resolution.kind === 'always-allow') this.deps.addRule(server, ctx.toolName, resolution.actor);
        // Bound to the definition the person saw; a changed one is not covered.
        else if (resolution.kind === 'allow-rule') this.deps.addRule(server, ctx.toolName, resolution.actor, { ...resolution.rule, definitionHash: tool ? definitionHashSync(tool) : undefined });
      },
    });
    const { inline } = this.deps;
    const shown = this.deps.pending.get(waiting.id);
    if (inline && ctx.clientElicits) inline.sawClient(session.clientInfo?.name);
    if (inline && shown) {
      offerInline({
        ctx, call: shown, settled: waiting.result, settings: inline,
        decide: (id, decision, actor) => this.deps.pending.decide(id, decision, actor),
        previewUrl: this.deps.previewUrl?.(),
      });
    }
    const resolution = await waiting.result;
    switch (resolution.kind) {
      case 'cancelled': {
        const waitedMs = elapsedMs(started);
        if (resolution.end.by === 'client') this.deps.patience?.stopped(session.clientInfo?.name, waitedMs, resolution.end.reason);
        // The agent's client gave up, not the person: the log says whose the cancel was.
        await log({ decision: 'deny', decidedBy: resolution.end.by === 'client' ? 'client' : 'cancelled', status: 'cancelled', detail: stoppedDetail(resolution.end, waitedMs) });
        return { forward: false, result: errorResult('The call was cancelled before anyone decided. It was not run.') };
      }
      case 'deny': {
        const text = resolution.by === 'timeout'
          ? `No one approved this call within ${Math.round(timeoutMs / 1000)} s, so Countersign denied it. It was not run.`
          : `The person using Countersign denied this call${resolution.reason ? `: ${resolution.reason}` : '.'} It was not run.`;
        await log({ decision: 'deny', decidedBy: resolution.by, status: 'denied', detail: resolution.reason ?? text, actor: resolution.actor });
        return { forward: false, result: errorResult(text) };
      }
      case 'allow-session':
        session.allowedTools.add(ctx.toolName);
        break;
      case 'always-allow': // saved by commit, before the call was released
      case 'allow-rule':
      case 'allow-once':
        break;
    }
    // The server may have changed the tool (or been quarantined) while the person looked at the call:
    // their approval was for the definition they saw.
    const now = await session.toolDefinition(ctx.toolName).catch(() => undefined);
    const late = trust.callBlock(server, now, ctx.toolName);
    if (late) {
      await log({ decision: 'deny', decidedBy: 'policy', status: 'denied', detail: late.message, actor: resolution.actor });
      return { forward: false, result: errorResult(late.message) };
    }
    // A person's first approval records what the server looked like when they approved it.
    trust.onPersonApproved(server, session.knownTools());
    // What the person granted, for a continuation of this call: only a one-time yes is asked again.
    const granted: DecidedBy = resolution.kind === 'allow-session' ? 'session' : resolution.kind === 'always-allow' ? 'rule' : 'person';
    return forward('person', resolution.actor, granted);
  }
}

/** Why a call stopped waiting, for the log. */
function stoppedDetail(end: WaitEnd, waitedMs: number): string {
  const after = `after ${Math.round(waitedMs / 1000)} s`;
  if (end.by === 'client') {
    return `The agent stopped waiting ${after}${end.reason ? ` (its client said: ${escapeControl(end.reason)})` : ''}, before anyone decided. It was not run.`;
  }
  return `The session ended ${after} (${escapeControl(end.why)}), before anyone decided. It was not run.`;
}

/** Self-protection on the call's card: which argument names what. */
function protectedFindings(matches: ProtectedMatch[]): Finding[] {
  return matches.slice(0, 10).map((m) => ({
    code: 'protected-path',
    severity: m.kind === 'ancestor' ? 'warning' : 'danger',
    message: m.kind === 'runs'
      ? `An argument runs ${m.what}${m.root ? ` (${escapeControl(m.root)})` : ''}: it could approve, trust or change what Countersign allows. Countersign always asks before such a call.`
      : m.kind === 'inside'
        ? `An argument names ${m.what}${m.root ? ` (${escapeControl(m.root)})` : ''}. Countersign always asks before a call touches it.`
        : `An argument names a folder that holds ${m.what} (${escapeControl(m.root)}).`,
    excerpt: escapeControl(m.text.slice(0, 300)),
  }));
}

/** The audit fields for how a forwarded call ended (and each sending, when it was sent more than once). */
export function settledFields(outcome: CallOutcome): Pick<AuditEntry, 'status' | 'attempts'> & { detail?: string } {
  const fields = outcomeFields(outcome);
  return outcome.attempts ? { ...fields, attempts: outcome.attempts } : fields;
}

function outcomeFields(outcome: CallOutcome): Pick<AuditEntry, 'status'> & { detail?: string } {
  switch (outcome.status) {
    case 'ok':
    case 'error':
      return { status: outcome.status };
    case 'failed':
    case 'timeout':
      return { status: outcome.status, detail: outcome.error };
    case 'cancelled':
      return { status: 'cancelled', detail: 'The client cancelled the call after it was forwarded.' };
    case 'input-required':
      return { status: 'input-required', detail: outcome.detail };
  }
}


function cardFacts(enforced: ReturnType<typeof enforcedFacts> | undefined): CardFacts | undefined {
  if (!enforced || (!enforced.noNetwork && !enforced.readOnlyFiles)) return undefined;
  return { noNetwork: enforced.noNetwork, readOnlyFiles: enforced.readOnlyFiles, by: 'the sandbox' };
}
