// Turns a pending call's reasons and scan findings into warnings a person can read, worst first.
// The broker's sentences stay available as detail; the titles here are short and plain.
import type { PendingCall } from '../../../shared/api';
import type { ReasonCode, Severity } from '../../../shared/decision';
import { escapeControl } from '../../../shared/escape';

export interface Warning {
  key: string;
  severity: Severity;
  title: string;
  /** A few words for the queue card. */
  short: string;
  detail?: string;
  /** From the description/argument scan rather than the decision policy. */
  scan?: boolean;
  /** Offending text from a scan finding, already made visible. */
  excerpt?: string;
}

const TITLES: Partial<Record<ReasonCode, string>> = {
  destructive: 'May change or delete data',
  'no-annotations': 'No annotations: treated as destructive and open-world',
  'open-world': 'Data can leave this machine',
  'exfiltration-risk': 'Possible exfiltration after local reads',
  'unverified-claims': "Claims from an untrusted server aren't verified",
  'held-for-review': 'Definition changed since you approved it',
  'unknown-tool': 'Unknown tool: never listed by the server',
  'untrusted-server': 'Untrusted server: every call asks',
  paused: 'Countersign is paused',
  'protected-path': "Names Countersign's own files or a client's config",
  'user-rule-ignored-untrusted': 'Your rule is ignored while the server is untrusted',
};

const SHORT: Partial<Record<ReasonCode, string>> = {
  destructive: 'Changes data',
  'no-annotations': 'No annotations',
  'open-world': 'Data can leave',
  'exfiltration-risk': 'Exfiltration risk',
  'unverified-claims': 'Unverified claims',
  'held-for-review': 'Definition changed',
  'unknown-tool': 'Unknown tool',
  'untrusted-server': 'Untrusted server',
  paused: 'Paused',
  'protected-path': 'Countersign’s files',
  'user-rule-ignored-untrusted': 'Rule ignored',
};

/** Plain title for a reason code (the audit log stores codes). */
export function reasonTitle(code: string): string {
  return TITLES[code as ReasonCode] ?? code;
}

const RANK: Record<Severity, number> = { danger: 0, warning: 1, info: 2 };

export function callWarnings(call: Pick<PendingCall, 'reasons' | 'findings'>): Warning[] {
  const out: Warning[] = [];
  for (const r of call.reasons ?? []) {
    // "needs approval" restates that the call is in the queue; it warns of nothing.
    if (r.code === 'needs-approval') continue;
    const detail = escapeControl(r.message);
    out.push({ key: `r:${r.code}`, severity: r.severity, title: TITLES[r.code] ?? detail, short: SHORT[r.code] ?? r.code, detail: TITLES[r.code] ? detail : undefined });
  }
  (call.findings ?? []).forEach((f, i) => {
    out.push({
      key: `f:${f.code}:${i}`,
      severity: f.severity,
      title: escapeControl(f.message),
      short: 'Scan finding',
      scan: true,
      excerpt: f.excerpt ? escapeControl(f.excerpt, { keepNewlines: true }) : undefined,
    });
  });
  return out.map((w, i) => [w, i] as const).sort((a, b) => RANK[a[0].severity] - RANK[b[0].severity] || a[1] - b[1]).map(([w]) => w);
}

export const SEVERITY_LABEL: Record<Severity, string> = { danger: 'Danger', warning: 'Warning', info: 'Note' };
