// A pending call's lines as the queue and the detail show them, from the shared warning model;
// plus short titles for the reason codes the audit log stores.
import type { PendingCall } from '../../../shared/api';
import type { ReasonCode, Severity } from '../../../shared/decision';
import { pendingCallWarnings, type CallWarning } from '../../../shared/call-warnings';

export interface Warning extends CallWarning {
  /** From the description/argument scan rather than the decision policy. */
  scan?: boolean;
}

const TITLES: Partial<Record<ReasonCode, string>> = {
  destructive: 'Treated as able to change or delete data',
  'no-annotations': 'No annotations: treated as destructive and open-world',
  'open-world': 'Data may leave this machine',
  'exfiltration-risk': 'Could send data out after local reads',
  'unverified-claims': 'Claims from an untrusted server: not checked',
  'held-for-review': 'Definition changed since you approved it',
  'unknown-tool': 'Unknown tool: never listed by the server',
  'untrusted-server': 'Untrusted server: every call asks',
  paused: 'Countersign is paused',
  'protected-path': "Names Countersign's own files or a client's config",
  'user-rule-ignored-untrusted': 'Your rule is ignored while the server is untrusted',
  'schema-violation': "Arguments don't match the tool's schema",
  'read-only-enforced': 'read-only: enforced (trusted, and its files are mounted read-only)',
  'network-off-enforced': 'No network (enforced): nothing can leave through this call',
  'open-world-without-network': 'Says it reaches outside, but its network is off (enforced)',
  'write-on-read-only': 'Says it writes, but its files are read-only (enforced)',
};

/** Plain title for a reason code (the audit log stores codes). */
export function reasonTitle(code: string): string {
  return TITLES[code as ReasonCode] ?? code;
}

/** The call's warnings from the one shared model (shared/call-warnings), worst consequence first. */
export function callWarnings(call: Pick<PendingCall, 'server' | 'serverTrusted' | 'tool' | 'hints' | 'reasons' | 'arguments' | 'findings' | 'facts'>): Warning[] {
  return pendingCallWarnings(call).map((w) => ({ ...w, scan: w.code === 'scan' || undefined }));
}

export const SEVERITY_LABEL: Record<Severity, string> = { danger: 'Danger', warning: 'Warning', info: 'Note' };
