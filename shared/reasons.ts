// The one place for the sentences a person reads about a decision.
import { worstFirst, type Reason, type ReasonCode, type Severity } from './decision.js';
import { escapeControl } from './escape.js';

export interface ReasonContext {
  server: string;
  tool: string;
}

// Names come from servers: quoted, control characters made visible, never interpreted.
const q = (name: string): string => `'${escapeControl(name)}'`;

const TEXT: Record<ReasonCode, { severity: Severity; message: (s: string, t: string) => string }> = {
  // Said of every call that is not trusted to only read or only add: a claim nothing checked lifts nothing.
  destructive: { severity: 'danger', message: () => 'Treated as able to change or delete data.' },
  'exfiltration-risk': {
    severity: 'danger',
    message: () => 'This session already read local data; this call can send data out of the machine.',
  },
  'no-annotations': {
    severity: 'warning',
    message: (_s, t) =>
      `${t} says nothing about what it does, so it is treated as able to change or delete data and reach outside this machine.`,
  },
  'unknown-tool': {
    severity: 'warning',
    message: (s, t) => `${s} never listed a tool called ${t}, so nothing is known about it.`,
  },
  'open-world': { severity: 'warning', message: () => 'Data may leave this machine through this call.' },
  'untrusted-server': {
    severity: 'warning',
    message: (s) => `${s} is not trusted, so every call needs your approval.`,
  },
  paused: { severity: 'warning', message: () => 'Countersign is paused: every call is denied until you resume.' },
  'held-for-review': {
    severity: 'warning',
    message: () => "This tool's definition changed and is waiting for your review.",
  },
  quarantined: {
    severity: 'danger',
    message: (s) => `${s} no longer matches its pin, so it is quarantined: no call runs until you re-pin or unpin it.`,
  },
  'blocked-by-policy': { severity: 'danger', message: (s) => `Your team policy blocks ${s}.` },
  'policy-always-ask': { severity: 'info', message: (s, t) => `Your team policy says ${t} on ${s} always needs your approval.` },
  'definition-changed': {
    severity: 'warning',
    message: (_s, t) => `${t}'s definition changed since you approved it; the change only adds caution and was applied.`,
  },
  'protected-path': {
    severity: 'danger',
    message: () => "This call names Countersign's own files or an AI client's config. No rule, allowance or trust lets it run without you.",
  },
  'scan-finding': { severity: 'warning', message: () => "Countersign's scan found something worth a look in this tool's text or arguments." },
  'unverified-claims': {
    severity: 'info',
    message: (s) => `${s} is not trusted: what it says about this tool is not checked, and counts only where it adds caution.`,
  },
  'user-rule-ignored-untrusted': {
    severity: 'info',
    message: (s) => `Your saved rule for this tool applies only while ${s} is trusted.`,
  },
  'trusted-read-only': {
    severity: 'info',
    message: (s) => `${s} is trusted and says this tool only reads; allowed without asking, and logged with its arguments.`,
  },
  'user-rule-allow': { severity: 'info', message: (s, t) => `Allowed by your saved rule for ${t} on ${s}.` },
  'session-allow': { severity: 'info', message: (_s, t) => `You allowed ${t} for this session.` },
  'schema-violation': {
    severity: 'warning',
    message: (_s, t) => `The arguments do not match ${t}'s inputSchema, so this call asks even where it would run on its own.`,
  },
  'needs-approval': { severity: 'info', message: (s, t) => `${t} on ${s} needs your approval.` },
  'read-only-enforced': {
    severity: 'info',
    message: (s) => `read-only: enforced. ${s} is trusted, says this tool only reads, and its sandbox lets it write none of your files; allowed without asking, and logged.`,
  },
  'network-off-enforced': {
    severity: 'info',
    message: (s) => `${s} has no network (enforced by its sandbox): nothing can leave this machine through this call.`,
  },
  'open-world-without-network': {
    severity: 'warning',
    message: (s, t) => `${t} says it reaches outside this machine, but ${s} runs with no network (enforced): the claim and the limit disagree, and any connection will fail.`,
  },
  'write-on-read-only': {
    severity: 'warning',
    message: (s, t) => `${t} says it changes data, but ${s} can write none of your files (read-only, enforced): a write will fail.`,
  },
};

export function reason(code: ReasonCode, ctx: ReasonContext): Reason {
  const entry = TEXT[code];
  return { code, severity: entry.severity, message: entry.message(q(ctx.server), q(ctx.tool)) };
}

/** Orders reasons danger, warning, info; ties keep their order (Array.prototype.sort is stable). */
export function bySeverity(reasons: readonly Reason[]): Reason[] {
  return [...reasons].sort(worstFirst);
}
