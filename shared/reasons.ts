// The one place for the words a person reads about a decision: each reason's sentence and short title,
// each refusal's title, each finding's label and the severity names. Every table is a Record over its
// code type, so a new code without words is a type error, and nothing shows a bare code.
import { worstFirst, type Reason, type ReasonCode, type RefusalCode, type Severity } from './decision.js';
import { escapeControl } from './escape.js';
import type { FindingCode } from './findings.js';

export interface ReasonContext {
  server: string;
  tool: string;
}

// Names come from servers: quoted, control characters made visible, never interpreted.
const q = (name: string): string => `'${escapeControl(name)}'`;

/** `title`: a few words, for lists of stored codes (the Activity screen); `message`: the sentence on a call. */
const TEXT: Record<ReasonCode, { severity: Severity; title: string; message: (s: string, t: string) => string }> = {
  // Said of every call that is not trusted to only read or only add: a claim nothing checked lifts nothing.
  destructive: { severity: 'danger', title: 'Treated as able to change or delete data', message: () => 'Treated as able to change or delete data.' },
  'exfiltration-risk': {
    severity: 'danger',
    title: 'Could send data out after local reads',
    message: () => 'This session already read local data; this call can send data out of the machine.',
  },
  'no-annotations': {
    severity: 'warning',
    title: 'No annotations: treated as destructive and open-world',
    message: (_s, t) => `${t} says nothing about what it does, so it is treated as able to change or delete data and reach outside this machine.`,
  },
  'unknown-tool': {
    severity: 'warning',
    title: 'Unknown tool: never listed by the server',
    message: (s, t) => `${s} never listed a tool called ${t}, so nothing is known about it.`,
  },
  'open-world': { severity: 'warning', title: 'Data may leave this machine', message: () => 'Data may leave this machine through this call.' },
  'untrusted-server': {
    severity: 'warning',
    title: 'Untrusted server: every call asks',
    message: (s) => `${s} is not trusted, so every call needs your approval.`,
  },
  paused: { severity: 'warning', title: 'Countersign is paused', message: () => 'Countersign is paused: every call is denied until you resume.' },
  'held-for-review': {
    severity: 'warning',
    title: 'Definition changed since you approved it',
    message: () => "This tool's definition changed and is waiting for your review.",
  },
  quarantined: {
    severity: 'danger',
    title: 'Server quarantined: it no longer matches its pin',
    message: (s) => `${s} no longer matches its pin, so it is quarantined: no call runs until you re-pin or unpin it.`,
  },
  'blocked-by-policy': { severity: 'danger', title: 'Blocked by your team policy', message: (s) => `Your team policy blocks ${s}.` },
  'policy-always-ask': {
    severity: 'info',
    title: 'Your team policy says it always asks',
    message: (s, t) => `Your team policy says ${t} on ${s} always needs your approval.`,
  },
  'definition-changed': {
    severity: 'warning',
    title: 'Definition changed; the change only adds caution',
    message: (_s, t) => `${t}'s definition changed since you approved it; the change only adds caution and was applied.`,
  },
  'protected-path': {
    severity: 'danger',
    title: "Names Countersign's own files or a client's config, or runs its command line",
    message: () =>
      "This call names Countersign's own files or an AI client's config, or runs Countersign's command line. No rule, allowance or trust lets it run without you.",
  },
  'scan-finding': {
    severity: 'warning',
    title: "Countersign's scan found something worth a look",
    message: () => "Countersign's scan found something worth a look in this tool's text or arguments.",
  },
  'unverified-claims': {
    severity: 'info',
    title: 'Claims from an untrusted server: not checked',
    message: (s) => `${s} is not trusted: what it says about this tool is not checked, and counts only where it adds caution.`,
  },
  'user-rule-ignored-untrusted': {
    severity: 'info',
    title: 'Your rule is ignored while the server is untrusted',
    message: (s) => `Your saved rule for this tool applies only while ${s} is trusted.`,
  },
  'trusted-read-only': {
    severity: 'info',
    title: 'Trusted server, and the tool only reads',
    message: (s) => `${s} is trusted and says this tool only reads; allowed without asking, and logged with its arguments.`,
  },
  'user-rule-allow': { severity: 'info', title: 'Allowed by your saved rule', message: (s, t) => `Allowed by your saved rule for ${t} on ${s}.` },
  'session-allow': { severity: 'info', title: 'Allowed by you for this session', message: (_s, t) => `You allowed ${t} for this session.` },
  'schema-violation': {
    severity: 'warning',
    title: "Arguments don't match the tool's schema",
    message: (_s, t) => `The arguments do not match ${t}'s inputSchema, so this call asks even where it would run on its own.`,
  },
  'needs-approval': { severity: 'info', title: 'Needs your approval', message: (s, t) => `${t} on ${s} needs your approval.` },
  'read-only-enforced': {
    severity: 'info',
    title: 'read-only: enforced (trusted, and its files are mounted read-only)',
    message: (s) =>
      `read-only: enforced. ${s} is trusted, says this tool only reads, and its sandbox lets it write none of your files; allowed without asking, and logged.`,
  },
  'network-off-enforced': {
    severity: 'info',
    title: 'No network (enforced): nothing can leave through this call',
    message: (s) => `${s} has no network (enforced by its sandbox): nothing can leave this machine through this call.`,
  },
  'open-world-without-network': {
    severity: 'warning',
    title: 'Says it reaches outside, but its network is off (enforced)',
    message: (s, t) =>
      `${t} says it reaches outside this machine, but ${s} runs with no network (enforced): the claim and the limit disagree, and any connection will fail.`,
  },
  'write-on-read-only': {
    severity: 'warning',
    title: 'Says it writes, but its files are read-only (enforced)',
    message: (s, t) => `${t} says it changes data, but ${s} can write none of your files (read-only, enforced): a write will fail.`,
  },
};

// Refusals before any decision: the log stores their code as the entry's reason.
const REFUSAL_TITLES: Record<RefusalCode, string> = {
  'arguments-too-deep': 'Refused: the arguments are nested too deeply to check',
  undecidable: 'Refused: Countersign could not decide this call',
};

/** The few words for a reason or refusal code as the audit log stores it; an unknown code says so. */
export function reasonTitle(code: string): string {
  if (Object.hasOwn(TEXT, code)) return TEXT[code as ReasonCode].title;
  if (Object.hasOwn(REFUSAL_TITLES, code)) return REFUSAL_TITLES[code as RefusalCode];
  return `A reason this version does not know (${escapeControl(code)})`;
}

/** The codes with words, for tests that walk them all. */
export const WORDED_CODES = { reasons: Object.keys(TEXT) as ReasonCode[], refusals: Object.keys(REFUSAL_TITLES) as RefusalCode[] };

/**
 * A finding's label on a card chip. The text scan's findings share one label (their sentence says
 * what was found); the rest name their check.
 */
const FINDING_LABELS: Record<FindingCode, string> = {
  'invisible-characters': 'Scan finding',
  'bidi-control': 'Scan finding',
  'unicode-tags': 'Scan finding',
  'control-characters': 'Scan finding',
  'model-instructions': 'Scan finding',
  'cross-server-reference': 'Scan finding',
  'secret-reference': 'Scan finding',
  'long-description': 'Scan finding',
  'embedded-url': 'Scan finding',
  'base64-blob': 'Scan finding',
  'secret-value': 'Secret in the arguments',
  'protected-path': 'Countersign’s files',
  'schema-violation': "Breaks the tool's schema",
  'schema-invalid': 'Unusable schema',
  'undeclared-argument': 'Undeclared argument',
  'confusable-name': 'Look-alike name',
  'name-format': 'Odd name',
  'server-identity': 'Claims another identity',
};

export const findingLabel = (code: FindingCode): string => FINDING_LABELS[code];
export const FINDING_CODES = Object.keys(FINDING_LABELS) as FindingCode[];

/** How a severity is named next to its icon. */
export const SEVERITY_LABEL: Record<Severity, string> = { danger: 'Danger', warning: 'Warning', info: 'Note' };

export function reason(code: ReasonCode, ctx: ReasonContext): Reason {
  const entry = TEXT[code];
  return { code, severity: entry.severity, message: entry.message(q(ctx.server), q(ctx.tool)) };
}

/** Orders reasons danger, warning, info; ties keep their order (Array.prototype.sort is stable). */
export function bySeverity(reasons: readonly Reason[]): Reason[] {
  return [...reasons].sort(worstFirst);
}
