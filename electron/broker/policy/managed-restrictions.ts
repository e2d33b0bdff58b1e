// What the managed policy's restrictions do to the person's own choices (the catalogue's and the audit
// export's are elsewhere): the rules that still apply, rules that may not be made, inline approval, and
// the longest a call may wait. Each also reads as text for the status, the CLI and the UI.
import type { ManagedRestriction } from '../../../shared/api.js';
import type { Rule } from '../../../shared/decision.js';
import type { Restrictions } from '../../../shared/managed-policy-schema.js';

type R = Restrictions | undefined;

/** The rules that apply: none with `alwaysAllow: none`; none covering the exfiltration guard with `not-exfiltration`. */
export function rulesInForce(rules: Rule[], r: R): Rule[] {
  if (r?.alwaysAllow?.allowed === 'none') return [];
  if (r?.alwaysAllow?.allowed === 'not-exfiltration') return rules.map((rule) => (rule.coversExfiltration ? { ...rule, coversExfiltration: undefined } : rule));
  return rules;
}

/** Why a rule may not be made (or changed to this): undefined when it may. */
export function ruleRefusal(r: R, rule: { coversExfiltration?: boolean }): string | undefined {
  const a = r?.alwaysAllow;
  if (!a) return undefined;
  const why = a.reason ? ` (${a.reason})` : '';
  if (a.allowed === 'none') return `Your organization's managed policy allows no "always allow" rules${why}: every call asks.`;
  if (rule.coversExfiltration) return `Your organization's managed policy allows no rule that covers the exfiltration guard${why}: save the rule without it.`;
  return undefined;
}

/** The approval timeout in effect: the person's, capped by the managed maximum. */
export function cappedTimeout(seconds: number, r: R): number {
  const max = r?.maxApprovalTimeout?.seconds;
  return max !== undefined && seconds > max ? max : seconds;
}

export function inlineApprovalOffReason(r: R): string | undefined {
  if (!r?.inlineApprovalOff) return undefined;
  return `Your organization's managed policy turns approval inside the MCP client off (${r.inlineApprovalOff.reason})`;
}

/** Each restriction as the status, CLI and UI show it (the catalogue's and export's included, for their text). */
export function describeRestrictions(r: R, personTimeout?: number): ManagedRestriction[] {
  if (!r) return [];
  const out: ManagedRestriction[] = [];
  if (r.onlyCatalogue) out.push({ key: 'onlyCatalogue', text: 'Only servers in the organization’s catalogue may run.', reason: r.onlyCatalogue.reason });
  for (const d of r.deny) {
    const what = [d.name && `name ${d.name}`, d.package && `package ${d.package}`, d.command && `command ${d.command}`].filter(Boolean).join(', ');
    out.push({ key: 'deny', text: `Servers matching ${what} may not run.`, reason: d.reason });
  }
  if (r.minimumLimits)
    out.push({ key: 'minimumLimits', text: 'Servers outside the catalogue must run with the organization’s minimum limits.', reason: r.minimumLimits.reason });
  if (r.alwaysAllow) {
    const text = r.alwaysAllow.allowed === 'none' ? 'No "always allow" rules: every call that would ask, asks.' : 'No rule may cover the exfiltration guard.';
    out.push({ key: 'alwaysAllow', text, reason: r.alwaysAllow.reason });
  }
  if (r.inlineApprovalOff) out.push({ key: 'inlineApprovalOff', text: 'Approval inside the MCP client is off.', reason: r.inlineApprovalOff.reason });
  if (r.maxApprovalTimeout) {
    const s = r.maxApprovalTimeout.seconds;
    const capped = personTimeout !== undefined && personTimeout > s ? ` Your setting of ${personTimeout} s is capped to ${s} s.` : '';
    out.push({
      key: 'maxApprovalTimeout',
      text: `A call waits at most ${s} s for approval.${capped}`,
      reason: r.maxApprovalTimeout.reason,
      ...(capped ? { capped: { from: personTimeout!, to: s } } : {}),
    });
  }
  if (r.auditExportRequired)
    out.push({ key: 'auditExportRequired', text: 'The audit export is required and cannot be turned off.', reason: r.auditExportRequired.reason });
  return out;
}
