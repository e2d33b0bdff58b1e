// The organization's managed policy, as the doctor reports it: none, in force, ignored (with the
// chown/chmod fix) or broken (every server blocked).
import type { DoctorFinding } from '../../../shared/doctor.js';
import type { ManagedState } from '../policy/managed-source.js';

export function managedFindings(state: ManagedState | undefined): DoctorFinding[] {
  const area = 'policy' as const;
  if (!state || state.kind === 'none') return [];
  if (state.kind === 'ignored') {
    return [
      {
        area,
        code: 'managed.ignored',
        level: 'warning',
        summary: `The managed policy ${state.path} is ignored: ${state.why}.`,
        detail: 'A managed policy counts only when it and every folder above it are owned by root and writable by nobody else (docs/admin.md).',
        fix: state.fix,
        subject: { path: state.path },
      },
    ];
  }
  if (state.kind === 'broken') {
    return [
      {
        area,
        code: 'managed.broken',
        level: 'problem',
        summary: `The managed policy ${state.path} cannot be used: ${state.error}.`,
        detail: 'Fail closed: every server is blocked until your organization fixes it.',
        fix: `ask your administrator to fix it; check it with: countersign policy check '${state.path}'`,
        subject: { path: state.path },
      },
    ];
  }
  const n = Object.values(state.policy.restrictions).flat().filter(Boolean).length;
  return [
    {
      area,
      code: 'managed.loaded',
      level: 'note',
      summary: `The managed policy ${state.path} is in force (managed by your organization): ${n} restriction${n === 1 ? '' : 's'}.`,
      subject: { path: state.path },
    },
  ];
}
