// A pending call's lines as the queue and the detail show them, from the shared warning model.
// Their words, and the titles of stored reason codes, are in shared/reasons.ts.
import type { PendingCall } from '../../../shared/api';
import { pendingCallWarnings, type CallWarning } from '../../../shared/call-warnings';

export interface Warning extends CallWarning {
  /** From the description/argument scan rather than the decision policy. */
  scan?: boolean;
}

/** The call's warnings from the one shared model (shared/call-warnings), worst consequence first. */
export function callWarnings(
  call: Pick<PendingCall, 'server' | 'serverTrusted' | 'tool' | 'hints' | 'reasons' | 'arguments' | 'findings' | 'facts'>,
): Warning[] {
  return pendingCallWarnings(call).map((w) => ({ ...w, scan: w.code === 'scan' || undefined }));
}
