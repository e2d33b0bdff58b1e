// Step 2 of deciding a call: one pure decision over the facts gate-facts.ts gathered. No I/O, no clock,
// no state: it takes data and says what to do, and call-gate.ts does it. The policy itself is
// shared/decide.ts; this adds what only the broker knows (refusals, blocks, the schema check, leases).
import type { Actor } from '../../../shared/api.js';
import { decide, readsLocalData } from '../../../shared/decide.js';
import type { DecidedBy, DecisionResult, ReasonCode } from '../../../shared/decision.js';
import { escapeControl } from '../../../shared/escape.js';
import { isPlainRule } from '../../../shared/rules.js';
import { withSchemaCheck } from '../checks/schema-check.js';
import type { CallBlock } from '../trust/call-view.js';
import type { GateFacts, DecisionFacts } from './gate-facts.js';
import type { WaitEnd } from './client-patience.js';
import type { Resolution } from './pending-queue.js';

/** How a call that is run is forwarded. */
export interface ForwardPlan {
  /** Who decided, for the log. */
  decidedBy: DecidedBy;
  /** What was granted, for a continuation of this call: only a one-time yes is asked again. */
  granted: DecidedBy;
  actor?: Actor;
  /** The tool only reads, locally: the client has now read local data (the exfiltration guard). */
  marksLocalRead: boolean;
  /** `connect` may repeat this allow under a lease (an automatic allow by a plain rule or policy). */
  leasable: boolean;
  retryOnTimeout: boolean;
  /** For the lease's self-protection check. */
  toolOnlyReads: boolean;
}

/** A call that is not run, and what the log and the client are told. */
export interface StopPlan {
  kind: 'stop';
  log: { decidedBy: DecidedBy; status: 'denied' | 'cancelled'; detail: string; actor?: Actor };
  /** The text of the error result the client gets. */
  answer: string;
}

export type GatePlan =
  /** Stopped before any decision (the log cannot be written, or the tool is blocked): logged bare. */
  | { kind: 'refuse'; reasons: ReasonCode[]; detail: string }
  | { kind: 'deny'; facts: DecisionFacts; decided: Decided; stop: StopPlan }
  | { kind: 'allow'; facts: DecisionFacts; decided: Decided; forward: ForwardPlan }
  | { kind: 'ask'; facts: DecisionFacts; decided: Decided };

/** The policy's decision, and what every log entry of the call carries from it. */
export interface Decided {
  decision: DecisionResult;
  /** Logged reason codes. */
  reasons: string[];
  /** The schema's first violation, noted in the log. */
  schemaNote?: string;
}

export function decideGate(facts: GateFacts): GatePlan {
  if ('refused' in facts) return { kind: 'refuse', reasons: [], detail: facts.refused };
  if ('block' in facts) return { kind: 'refuse', reasons: [facts.block.code], detail: facts.block.message };
  const f = facts.call;
  const decided = decidePolicy(facts.server, facts.toolName, f);
  const { decision } = decided;
  if (decision.outcome === 'deny') {
    const text = decision.reasons[0]?.message ?? 'Countersign denied this call.';
    return { kind: 'deny', facts: f, decided, stop: { kind: 'stop', log: { decidedBy: 'policy', status: 'denied', detail: text }, answer: text } };
  }
  if (decision.outcome === 'allow') return { kind: 'allow', facts: f, decided, forward: forwardPlan(decided, f, decision.decidedBy) };
  return { kind: 'ask', facts: f, decided };
}

function decidePolicy(server: string, toolName: string, f: DecisionFacts): Decided {
  const decided = decide({
    server: { name: server, trusted: f.trusted },
    tool: f.tool,
    toolName,
    rules: f.rules,
    arguments: f.arguments,
    sessionId: f.sessionId,
    now: f.now,
    definitionHash: f.definitionHash,
    session: { allowedTools: f.allowedTools, hasReadLocalData: f.hasReadLocalData },
    paused: f.paused,
    // A continuation of a call a person allowed once is asked again: that yes was for the call as it was
    // shown, not for the input the server then asked for (docs/security.md, "Multi round-trip calls").
    forceAsk: f.policyAlwaysAsk || f.earlierBy === 'person',
    protectedMatches: f.protectedMatches,
    enforced: f.enforced,
  });
  const decision = withSchemaCheck(decided, f.schema, { server, tool: toolName });
  return {
    decision,
    reasons: decision.reasons.map((r) => r.code),
    ...(f.schema.violated ? { schemaNote: f.schema.findings[0]!.message } : {}),
  };
}

/** How a call is forwarded: by the policy's own allow, or after a person's (`decidedBy` 'person'). */
export function forwardPlan(
  decided: Decided,
  f: Pick<DecisionFacts, 'trusted' | 'takesLeases'>,
  decidedBy: DecidedBy,
  granted: DecidedBy = decidedBy,
  actor?: Actor,
): ForwardPlan {
  const { decision } = decided;
  const { hints } = decision;
  return {
    decidedBy,
    granted,
    ...(actor !== undefined ? { actor } : {}),
    // Marked before the call runs: once forwarded, local data may already be on its way to the model.
    marksLocalRead: readsLocalData(hints),
    // Only an automatic allow may be reused without asking; a person's yes was for this one call.
    // A scoped, expiring or session rule is checked per call: `connect` may not repeat it by tool name.
    leasable: f.takesLeases && !(decidedBy === 'person' || (decision.rule !== undefined && !isPlainRule(decision.rule))),
    retryOnTimeout: f.trusted && hints.supplied.idempotentHint && hints.idempotentHint && !hints.readOnlyHint,
    toolOnlyReads: hints.readOnlyHint,
  };
}

/** After the wait: how the person (or the timeout, or a cancel) answered. */
export type WaitPlan =
  | (StopPlan & { /** The agent's client gave up: its patience is learned from this. */ clientStopped?: { reason?: string } })
  | {
      kind: 'approved';
      /** Allowed for the rest of the session: added before the call is checked again. */ sessionAllow: boolean;
      granted: DecidedBy;
      actor: Actor;
    };

export function afterWait(resolution: Resolution, timeoutMs: number, waitedMs: number): WaitPlan {
  switch (resolution.kind) {
    case 'cancelled': {
      const { end } = resolution;
      return {
        kind: 'stop',
        // The agent's client gave up, not the person: the log says whose the cancel was.
        log: { decidedBy: end.by === 'client' ? 'client' : 'cancelled', status: 'cancelled', detail: stoppedDetail(end, waitedMs) },
        answer: 'The call was cancelled before anyone decided. It was not run.',
        ...(end.by === 'client' ? { clientStopped: { reason: end.reason } } : {}),
      };
    }
    case 'deny': {
      const text =
        resolution.by === 'timeout'
          ? `No one approved this call within ${Math.round(timeoutMs / 1000)} s, so Countersign denied it. It was not run.`
          : `The person using Countersign denied this call${resolution.reason ? `: ${resolution.reason}` : '.'} It was not run.`;
      return { kind: 'stop', log: { decidedBy: resolution.by, status: 'denied', detail: resolution.reason ?? text, actor: resolution.actor }, answer: text };
    }
    case 'allow-session':
    case 'always-allow': // saved by the queue's commit, before the call was released
    case 'allow-rule':
    case 'allow-once':
      return {
        kind: 'approved',
        sessionAllow: resolution.kind === 'allow-session',
        granted: resolution.kind === 'allow-session' ? 'session' : resolution.kind === 'always-allow' ? 'rule' : 'person',
        actor: resolution.actor,
      };
  }
}

/**
 * The server may have changed the tool (or been quarantined) while the person looked at the call: their
 * approval was for the definition they saw. Facts gathered again after the wait; undefined: it runs.
 */
export function afterApproval(block: CallBlock | undefined, actor: Actor): StopPlan | undefined {
  return block ? { kind: 'stop', log: { decidedBy: 'policy', status: 'denied', detail: block.message, actor }, answer: block.message } : undefined;
}

/** Why a call stopped waiting, for the log. */
function stoppedDetail(end: WaitEnd, waitedMs: number): string {
  const after = `after ${Math.round(waitedMs / 1000)} s`;
  if (end.by === 'client') {
    return `The agent stopped waiting ${after}${end.reason ? ` (its client said: ${escapeControl(end.reason)})` : ''}, before anyone decided. It was not run.`;
  }
  return `The session ended ${after} (${escapeControl(end.why)}), before anyone decided. It was not run.`;
}
