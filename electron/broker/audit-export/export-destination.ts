// Where the audit log goes: the managed policy's `auditExport` when it names one (the organization's,
// which the person cannot change), else the person's (as sealed: export-setting.ts). A managed policy that cannot be read
// changes nothing here: the export goes on to the destination in effect before (fail closed).
import type { AuditExportDestination } from '../../../shared/audit-export-schema.js';
import type { ManagedState } from '../policy/managed-source.js';

export interface ExportChoice {
  source: 'managed' | 'person';
  destination: AuditExportDestination;
  /** restrictions.auditExportRequired, with the organization's reason. */
  required?: { reason: string };
}

/** The destination in effect; 'unchanged' while the managed policy is broken. */
export function exportChoice(managed: ManagedState, person: AuditExportDestination | undefined): ExportChoice | undefined | 'unchanged' {
  if (managed.kind === 'broken') return 'unchanged';
  if (managed.kind === 'loaded' && managed.policy.auditExport) {
    const required = managed.policy.restrictions.auditExportRequired;
    return { source: 'managed', destination: managed.policy.auditExport, ...(required && { required: { reason: required.reason } }) };
  }
  return person ? { source: 'person', destination: person } : undefined;
}

/** Refuses a change of the person's export while the managed policy decides it, saying why. */
export function assertExportChangeable(managed: ManagedState): void {
  if (managed.kind !== 'loaded' || !managed.policy.auditExport) return;
  const required = managed.policy.restrictions.auditExportRequired;
  throw new Error(
    required
      ? `The audit export is required by your organization (${required.reason}). It cannot be turned off or pointed elsewhere here; the managed policy ${managed.path} decides it.`
      : `The audit export is managed by your organization: the managed policy ${managed.path} names its destination, so a destination set here would not be used.`,
  );
}
