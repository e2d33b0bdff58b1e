// A team policy file in use: where it is named (COUNTERSIGN_POLICY, or the path the person set in
// Countersign, which is sealed: policy/policy-path.ts), whether it reads, what it does, and a path
// settings.json names that nobody confirmed (ignored until the person does).
import type { DoctorFinding } from '../../../shared/doctor.js';
import type { PolicyState } from '../policy/team-policy.js';
import type { ManagedState } from '../policy/managed-source.js';
import { managedFindings } from './managed-check.js';

export interface PolicyInUse {
  state: PolicyState;
  /** Who named the file in effect: the environment, the person (sealed), or settings.json while the seal cannot say. */
  from?: 'environment' | 'person' | 'unconfirmed';
  /** A path settings.json names that the person did not set in Countersign: ignored. */
  unconfirmed?: string;
  /** Without a broker or core the seal is not read: the path settings.json names, unchecked. */
  unchecked?: boolean;
  /** The organization's managed policy (doctor/managed-check.ts). */
  managed?: ManagedState;
}

const NAMED: Record<NonNullable<PolicyInUse['from']>, string> = {
  environment: 'named by COUNTERSIGN_POLICY in the environment Countersign started from',
  person: 'set in Countersign',
  unconfirmed: 'named in settings.json; Countersign cannot read its sealed records to check it',
};

export function policyFindings(p: PolicyInUse): DoctorFinding[] {
  return [...managedFindings(p.managed), ...teamFindings(p)];
}

function teamFindings(p: PolicyInUse): DoctorFinding[] {
  const area = 'policy' as const;
  const { state } = p;
  const out: DoctorFinding[] = [];
  if (p.unconfirmed) {
    out.push({
      area,
      code: 'policy.unconfirmed',
      level: 'warning',
      summary: `settings.json names the team policy file ${p.unconfirmed}, but it was not set in Countersign (a hand edit), so it is ignored.`,
      detail: 'The path to a policy is a grant like trust: only the one you set or confirm in Countersign counts.',
      fix: 'if it is the file your team gave you, confirm it: countersign policy confirm (or Servers → Not confirmed); otherwise remove policyPath from settings.json',
      subject: { path: p.unconfirmed },
    });
  }
  if (state.kind === 'none') return [{ area, code: 'policy.none', level: 'ok', summary: 'No team policy file is in use.' }, ...out];
  const named = p.unchecked ? 'named in settings.json; start Countersign to check that you set it' : NAMED[p.from ?? 'person'];
  if (state.kind === 'broken') {
    return [
      {
        area,
        code: 'policy.broken',
        level: 'problem',
        summary: `The team policy file ${state.path} (${named}) cannot be used: ${state.error}.`,
        detail: 'Fail closed: every server is blocked until it reads.',
        fix: `fix the file (docs/policy.md describes it), or stop using it (${p.from === 'environment' ? 'unset COUNTERSIGN_POLICY' : 'countersign policy unset, or Settings → Team policy'})`,
        subject: { path: state.path },
      },
      ...out,
    ];
  }
  const { policy } = state;
  const listed = Object.values(policy.servers).filter((s) => s.command).length;
  return [
    {
      area,
      code: 'policy.loaded',
      level: 'note',
      summary: `The team policy ${state.path} is in use (${named}): ${listed} command${listed === 1 ? '' : 's'} listed (others refused; none starts without you), ${policy.block.length} server${policy.block.length === 1 ? '' : 's'} blocked, ${policy.alwaysAsk.length} tool${policy.alwaysAsk.length === 1 ? '' : 's'} always asked.`,
      subject: { path: state.path },
    },
    ...out,
  ];
}
