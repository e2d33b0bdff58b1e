// A team policy file in use: where it is named (COUNTERSIGN_POLICY or settings.json), whether it reads,
// what it does, and whether it was set in Countersign. The setting is not sealed: a policy can approve
// commands for the person, so a path written into settings.json by hand is worth a look.
import type { DoctorFinding } from '../../../shared/doctor.js';
import type { PolicyState } from '../trust/team-policy.js';

export interface PolicyInUse {
  state: PolicyState;
  from?: 'COUNTERSIGN_POLICY' | 'settings.json';
  /** settings.json only: the audit log records it being set in Countersign (false: a hand edit, or a log rotated since). */
  setInCountersign?: boolean;
}

export function policyFindings(p: PolicyInUse): DoctorFinding[] {
  const area = 'policy' as const;
  const { state } = p;
  if (state.kind === 'none') return [{ area, code: 'policy.none', level: 'ok', summary: 'No team policy file is in use.' }];
  const named = p.from === 'COUNTERSIGN_POLICY' ? 'named by COUNTERSIGN_POLICY in the environment Countersign started from' : 'named by policyPath in settings.json';
  if (state.kind === 'broken') {
    return [{
      area, code: 'policy.broken', level: 'problem',
      summary: `The team policy file ${state.path} (${named}) cannot be used: ${state.error}.`,
      detail: 'Fail closed: every server is blocked until it reads.',
      fix: `fix the file (docs/policy.md describes it), or stop using it (${p.from === 'COUNTERSIGN_POLICY' ? 'unset COUNTERSIGN_POLICY' : 'clear the policy file in Settings'})`,
      subject: { path: state.path },
    }];
  }
  const { policy } = state;
  const approves = Object.values(policy.servers).filter((s) => s.command).length;
  const out: DoctorFinding[] = [{
    area, code: 'policy.loaded', level: 'note',
    summary: `The team policy ${state.path} is in use (${named}): ${approves} command${approves === 1 ? '' : 's'} approved, ${policy.block.length} server${policy.block.length === 1 ? '' : 's'} blocked, ${policy.alwaysAsk.length} tool${policy.alwaysAsk.length === 1 ? '' : 's'} always asked.`,
    subject: { path: state.path },
  }];
  if (p.from === 'settings.json' && p.setInCountersign === false) {
    out.push({
      area, code: 'policy.not-set-in-countersign', level: 'warning',
      summary: `settings.json names the policy ${state.path}, but Countersign's log has no record of it being set in Countersign (a hand edit, or a log rotated since).`,
      detail: 'The setting is not sealed, and a policy can approve commands for you: check that this is the file your team gave you.',
      fix: 'if it is not, clear the policy file in Settings (or remove policyPath from settings.json); if it is, set it again in Settings so the log records it',
      subject: { path: state.path },
    });
  }
  return out;
}
