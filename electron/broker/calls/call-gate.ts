// Decides each tools/call in three steps: gather its facts (gate-facts.ts), decide over them, purely
// (gate-decision.ts), then act here: answer, hold an asked call for a person, and log every call.
import type { Actor, AuditEntry, PendingCall, Settings } from '../../../shared/api.js';
import type { RefusalCode } from '../../../shared/decision.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { nestingDepth, MAX_ARGUMENT_DEPTH, TOO_DEEP_ARGUMENTS, tooDeepIn, tooDeepRefusal } from '../checks/argument-checks.js';
import { leaseSchema } from '../checks/schema-export.js';
import { rememberRead } from './call-facts.js';
import type { NewRule, PendingQueue } from './pending-queue.js';
import { ruleText } from '../../../shared/rules.js';
import { definitionHashSync } from '../trust/definition-tracker.js';
import type { ClientPatience } from './client-patience.js';
import { offerInline, type InlineApprovalSettings } from './inline-approval.js';
import { gatherCallFacts, gatherCardFacts, gatherLateBlock, type ClientHistory, type DecisionFacts, type FactSources } from './gate-facts.js';
import { afterApproval, afterWait, decideGate, forwardPlan, type Decided, type ForwardPlan, type StopPlan } from './gate-decision.js';
import { errorResult, type CallOutcome, type GateVerdict, type ToolCallContext } from './gate-contract.js';
import { elapsedMs, monotonicMs } from '../core/clock.js';
import { changedTargets, UNDO_DEFAULTS, undoAvailability } from '../../../shared/undo.js';
import type { CallSnapshot } from '../undo/undo-service.js';

/** When a call's decision began: the entry's time (wall clock) and the start of its duration (monotonic). */
interface Started {
  at: number;
  mono: number;
}

const startNow = (): Started => ({ at: Date.now(), mono: monotonicMs() });

/** What the gate reads (FactSources: trust, rules, history, limits…) and what it acts through. */
export interface GateDeps extends FactSources {
  pending: PendingQueue;
  addRule(server: string, tool: string, actor: Actor, extra?: NewRule): unknown;
  settings(): Settings;
  /**
   * A call's entry, allowed or denied; it may be written later (group commit) and then says whether it
   * reached the disk. The gate waits for it before the call's answer goes out.
   */
  audit(entry: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>): void | Promise<boolean>;
  /** Countersign's own refusals (arguments it could not handle): written at once, so a failure stays with this entry. */
  auditNow?(entry: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>): void;
  /** A call is about to be forwarded: its entry follows when it ends (audit-batch.ts looks at the log ahead). */
  expectAudit?(): void;
  /** Every server's last complete listing, for cross-server findings. */
  listings(): Map<string, ToolDefinition[]>;
  /**
   * The client read local data for the first time: leases that assumed it had not must end, in every
   * process of that client, before the read goes on (its answer could reach the model at once).
   */
  onLocalRead?(clientKey: string): Promise<void> | void;
  /** How long each client is likely to wait (shown on the card), learned from its cancels. */
  patience?: ClientPatience;
  /** Which clients may also answer a pending call in their own form (inline approval). */
  inline?: InlineApprovalSettings;
  /** Where the UI is, for the form's link to the full preview (never with a token). */
  previewUrl?(): string | undefined;
  /**
   * Keeps what an allowed call will change (undo/), on disk before the call is forwarded: here the
   * broker's decision is final, for its own sessions and for relay mode's `connect` alike.
   */
  snapshot?(ctx: ToolCallContext): Promise<CallSnapshot>;
}

export class CallGate {
  constructor(private readonly deps: GateDeps) {}

  /** Every call ends in the log: one that could not be decided is refused and logged with why. */
  async decideToolCall(ctx: ToolCallContext): Promise<GateVerdict> {
    // Every part of the call, not only its arguments: the input a retry carries is shown and sent too.
    const deep = ctx.tooDeepIn ?? tooDeepIn(ctx.request.params) ?? (nestingDepth(ctx.input?.supplied) > MAX_ARGUMENT_DEPTH ? 'inputResponses' : undefined);
    if (deep)
      return this.refuse(
        ctx,
        'arguments-too-deep',
        tooDeepRefusal(deep),
        nestingDepth(ctx.arguments) > MAX_ARGUMENT_DEPTH ? TOO_DEEP_ARGUMENTS : ctx.arguments,
      );
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
      time: new Date().toISOString(),
      server: ctx.session.serverName,
      tool: ctx.toolName,
      decision: 'deny' as const,
      decidedBy: 'policy' as const,
      reasons: [reason],
      durationMs: 0,
      status: 'denied' as const,
      detail: text,
      client: ctx.session.clientInfo?.name,
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
    const gathered = await gatherCallFacts(ctx, this.deps, Date.now());
    const plan = decideGate(gathered);
    if (plan.kind === 'refuse') {
      // Kept with the entries waiting for the log: it is written once the log takes them.
      await this.deps.audit({
        time: new Date().toISOString(),
        server: gathered.server,
        tool: ctx.toolName,
        arguments: ctx.arguments,
        decision: 'deny',
        decidedBy: 'policy',
        reasons: plan.reasons,
        durationMs: 0,
        status: 'denied',
        detail: plan.detail,
        client: ctx.session.clientInfo?.name,
      });
      return { forward: false, result: errorResult(plan.detail) };
    }
    // Only a call with all its facts gets past a refusal; this keeps the compiler sure of it.
    if (!('call' in gathered)) throw new Error('the call was decided without its facts');
    const { history } = gathered;
    switch (plan.kind) {
      case 'deny':
        return this.act(ctx, plan.facts, history, plan.decided, startNow(), plan.stop);
      case 'allow':
        return this.act(ctx, plan.facts, history, plan.decided, startNow(), plan.forward);
      case 'ask':
        return this.ask(ctx, plan.facts, history, plan.decided);
    }
  }

  /** Answers the call as planned and logs it: a stopped call at once, a forwarded one when it settles. */
  private async act(
    ctx: ToolCallContext,
    facts: DecisionFacts,
    history: ClientHistory,
    decided: Decided,
    started: Started,
    plan: StopPlan | ForwardPlan,
  ): Promise<GateVerdict> {
    const { session } = ctx;
    const { decision, reasons } = decided;
    const log = (
      fields: Pick<AuditEntry, 'decision' | 'decidedBy' | 'status'> & { detail?: string; actor?: Actor; snapshot?: string },
    ): void | Promise<boolean> => {
      return this.deps.audit({
        time: new Date(started.at).toISOString(),
        server: session.serverName,
        tool: ctx.toolName,
        arguments: ctx.arguments,
        reasons,
        durationMs: elapsedMs(started.mono),
        client: session.clientInfo?.name,
        ...(fields.decidedBy === 'rule' && decision.rule ? { rule: { id: decision.rule.id, text: ruleText(decision.rule) } } : {}),
        ...limitsNote(facts),
        ...(facts.trustedBy !== undefined ? { trustedBy: facts.trustedBy } : {}),
        ...(decided.schemaNote !== undefined ? { detail: decided.schemaNote } : {}),
        ...fields,
      });
    };
    if ('kind' in plan) {
      await log({ decision: 'deny', ...plan.log });
      return { forward: false, result: errorResult(plan.answer) };
    }
    const hadReadLocal = history.readLocalData;
    // Marked before the call runs: once forwarded, local data may already be on its way to the model.
    if (plan.marksLocalRead) {
      rememberRead(history, session.serverName, ctx.toolName, ctx.arguments);
      if (!hadReadLocal) {
        history.readLocalData = true;
        await this.deps.onLocalRead?.(session.clientKey);
      }
    }
    // A call that changes files is kept first (undo); one that could not be kept is not run.
    let kept: CallSnapshot | undefined;
    try {
      kept = await this.deps.snapshot?.(ctx);
    } catch (err) {
      const text = `Countersign could not keep the files this call changes (for undo), so it was not run: ${(err as Error).message}`;
      await log({ decision: 'deny', decidedBy: 'policy', status: 'denied', detail: text });
      return { forward: false, result: errorResult(text) };
    }
    // `connect` checks each leased call against the schema with this; none it can use: no lease. A call
    // that changes files is never leased: each one is snapshotted here first.
    const changes = changedTargets(ctx.toolName, ctx.arguments).length > 0;
    const check = plan.leasable && !changes ? await leaseSchema(facts.tool, facts.protocolVersion) : undefined;
    this.deps.expectAudit?.();
    const { decidedBy, actor } = plan;
    const snapshot = kept?.snapshot;
    return {
      forward: true,
      retryOnTimeout: plan.retryOnTimeout,
      onSettled: async (outcome: CallOutcome) => {
        // What the call left is recorded before the client hears the answer: after it, the person or
        // the agent may change the file again, and that must show as a change since the call (a
        // conflict), not as what the call left. Not synced: a crash only leaves the call's end unseen,
        // which undo treats as a conflict to confirm.
        if (kept) await kept.settle(outcome.status);
        return (await log({ decision: 'allow', decidedBy, actor, ...(snapshot ? { snapshot } : {}), ...settledFields(outcome) })) ?? true;
      },
      decidedBy: plan.granted,
      lease:
        check === undefined
          ? undefined
          : {
              decidedBy,
              reasons,
              untilLocalRead: !hadReadLocal,
              protect: { scope: facts.scope, toolOnlyReads: plan.toolOnlyReads },
              ...(check ? { schema: check } : {}),
            },
    };
  }

  /** An asked call waits for a person (or the client's own form), then is acted on as they answered. */
  private async ask(ctx: ToolCallContext, facts: DecisionFacts, history: ClientHistory, decided: Decided): Promise<GateVerdict> {
    const { session } = ctx;
    const server = session.serverName;
    const { tool } = facts;
    const started = startNow();
    const timeoutMs = this.deps.settings().approvalTimeoutSeconds * 1000;
    const card = await gatherCardFacts(ctx, facts, history, this.deps);
    const call: Omit<PendingCall, 'id' | 'createdAt' | 'expiresAt'> = {
      server,
      serverTrusted: facts.trusted,
      tool: ctx.toolName,
      title: typeof tool?.title === 'string' ? tool.title : typeof tool?.annotations?.title === 'string' ? tool.annotations.title : undefined,
      arguments: ctx.arguments,
      reasons: decided.decision.reasons,
      hints: decided.decision.hints,
      preview: decided.decision.preview,
      findings: card.findings,
      client: { ...session.clientInfo, session: session.id },
      ...(ctx.input ? { input: ctx.input } : {}),
      facts: card.facts,
      ...limitsNote(facts),
      // Said before the person decides: whether undo will be able to put this back.
      undo: undoAvailability(ctx.toolName, ctx.arguments, card.facts.targets, (this.deps.settings().undoMaxFileMB ?? UNDO_DEFAULTS.maxFileMB) * 1e6),
    };
    const { patience } = this.deps;
    const waiting = this.deps.pending.wait(call, {
      timeoutMs,
      signal: ctx.signal,
      sendProgress: ctx.sendProgress,
      clientWait: patience && ((createdAt) => patience.estimate(session.clientInfo?.name, createdAt, ctx.progressRequested)),
      // The rule is saved in the decision itself: if the disk refuses it, the person is told and the
      // call keeps waiting (it is never reported as saved, and never released on a rule that is not).
      commit: (resolution) => {
        if (resolution.kind === 'always-allow') this.deps.addRule(server, ctx.toolName, resolution.actor);
        // Bound to the definition the person saw; a changed one is not covered.
        else if (resolution.kind === 'allow-rule')
          this.deps.addRule(server, ctx.toolName, resolution.actor, { ...resolution.rule, definitionHash: tool ? definitionHashSync(tool) : undefined });
      },
    });
    const { inline } = this.deps;
    const shown = this.deps.pending.get(waiting.id);
    if (inline && ctx.clientElicits) inline.sawClient(session.clientInfo?.name);
    if (inline && shown) {
      offerInline({
        ctx,
        call: shown,
        settled: waiting.result,
        settings: inline,
        decide: (id, decision, actor) => this.deps.pending.decide(id, decision, actor),
        previewUrl: this.deps.previewUrl?.(),
      });
    }
    const resolution = await waiting.result;
    const waitedMs = elapsedMs(started.mono);
    const answered = afterWait(resolution, timeoutMs, waitedMs);
    if (answered.kind === 'stop') {
      if (answered.clientStopped) this.deps.patience?.stopped(session.clientInfo?.name, waitedMs, answered.clientStopped.reason);
      return this.act(ctx, facts, history, decided, started, answered);
    }
    if (answered.sessionAllow) session.allowedTools.add(ctx.toolName);
    const late = afterApproval(await gatherLateBlock(ctx, this.deps), answered.actor);
    if (late) return this.act(ctx, facts, history, decided, started, late);
    // A person's first approval records what the server looked like when they approved it.
    this.deps.trust.onPersonApproved(server, session.knownTools());
    return this.act(ctx, facts, history, decided, started, forwardPlan(decided, facts, 'person', answered.granted, answered.actor));
  }
}

/** Only what the sandbox of this very process enforces is logged and shown as the call's limits. */
function limitsNote(facts: DecisionFacts): { limits?: string } {
  return facts.enforced && facts.enforced.summary !== 'no limits' ? { limits: facts.enforced.summary } : {};
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
