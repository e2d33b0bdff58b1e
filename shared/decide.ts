// The approval policy: pure and deterministic, so the broker, the UI and the tests agree.
// Rulebook: from an untrusted server, annotations may add friction but never remove it.
import { cautiousHints, effectiveHints, hasAnyAnnotation } from './annotations.js';
import type { DecisionInput, DecisionResult, Reason, ReasonCode } from './decision.js';
import { hintsUnderLimits, limitNotes, readOnlyEnforced } from './enforced-limits.js';
import { isCritical } from './protected-paths.js';
import { bySeverity, reason } from './reasons.js';
import { ruleApplies } from './rules.js';
import type { EffectiveHints } from './tool.js';

/**
 * True when a tool claims to read without reaching outside (read-only, closed world).
 * The broker sets session.hasReadLocalData from this after the call runs. The claim only
 * ADDS friction (later open-world calls ask), so honouring it from any server is safe.
 */
export function readsLocalData(hints: EffectiveHints): boolean {
  return hints.readOnlyHint && !hints.openWorldHint;
}

export function decide(input: DecisionInput): DecisionResult {
  const ctx = { server: input.server.name, tool: input.toolName };
  const say = (code: ReasonCode): Reason => reason(code, ctx);
  const hints = effectiveHints(input.tool);
  const trusted = input.server.trusted;

  if (input.paused) {
    return { outcome: 'deny', reasons: [say('paused')], hints, preview: false, decidedBy: 'policy' };
  }

  // Warnings: an untrusted server's claims cannot lift them, so its tools get the cautious view.
  // Enforced limits are facts, not claims: they apply whoever the server is (enforced-limits.ts).
  const view = hintsUnderLimits(trusted ? hints : cautiousHints(hints), input.enforced);
  const known = input.tool !== undefined;
  const annotated = hasAnyAnnotation(input.tool);
  const destructive = !view.readOnlyHint && view.destructiveHint;
  const exfiltration = view.openWorldHint && input.session.hasReadLocalData;

  // Self-protection: a call that could change Countersign (or a client's config) always asks.
  const critical = isCritical(input.protectedMatches ?? [], view.readOnlyHint);

  const reasons: Reason[] = [];
  if (critical) reasons.push(say('protected-path'));
  if (exfiltration) reasons.push(say('exfiltration-risk'));
  // An untrusted server's "only reads" / "stays local" lifts nothing: the reasons are the cautious view's,
  // and the claim is noted as unchecked ('unverified-claims' below).
  if (destructive) reasons.push(say('destructive'));
  if (!trusted) reasons.push(say('untrusted-server'));
  if (!known) reasons.push(say('unknown-tool'));
  if (!annotated) reasons.push(say('no-annotations'));
  if (view.openWorldHint) reasons.push(say('open-world'));
  reasons.push(...limitNotes(input.tool, input.enforced).map(say));

  const result = (outcome: DecisionResult['outcome'], decidedBy: DecisionResult['decidedBy'], last: ReasonCode[]) => ({
    outcome,
    reasons: bySeverity([...reasons, ...last.map(say)]),
    hints: hintsUnderLimits(hints, input.enforced),
    preview: destructive,
    decidedBy,
  });

  const mine = input.rules.filter((r) => r.action === 'allow' && r.server === input.server.name && r.tool === input.toolName);
  const hasRule = mine.length > 0;
  // A rule covers a call only within its scope, lifetime, session and definition, and past the
  // exfiltration guard only when it says so.
  const ruleFor = (guarded: boolean) =>
    mine.find((r) =>
      ruleApplies(r, input.toolName, {
        arguments: input.arguments,
        sessionId: input.sessionId,
        now: input.now ?? Date.now(),
        definitionHash: input.definitionHash,
        exfiltration: guarded,
        schema: input.tool?.inputSchema,
      }),
    );

  if (!trusted) {
    const notes: ReasonCode[] = [];
    if (annotated) notes.push('unverified-claims');
    if (hasRule) notes.push('user-rule-ignored-untrusted');
    if (input.forceAsk) notes.push('policy-always-ask');
    return result('ask', 'policy', notes);
  }
  if (critical) return result('ask', 'policy', []);
  // A tool the server never listed has no definition a rule or allowance could have been given for.
  if (input.forceAsk) return result('ask', 'policy', ['policy-always-ask']);
  if (!exfiltration && known) {
    if (hints.readOnlyHint) return result('allow', 'policy', [readOnlyEnforced(hints, input.enforced) ? 'read-only-enforced' : 'trusted-read-only']);
    if (input.session.allowedTools.has(input.toolName)) return result('allow', 'session', ['session-allow']);
  }
  const rule = known ? ruleFor(exfiltration) : undefined;
  if (rule) return { ...result('allow', 'rule', ['user-rule-allow']), rule };
  return result('ask', 'policy', ['needs-approval']);
}
