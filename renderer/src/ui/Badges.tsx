// Small state labels. Colour always comes with an icon and words.
import type { ServerStatus } from '../../../shared/api';
import type { Severity } from '../../../shared/decision';
import { SEVERITY_LABEL } from '../../../shared/reasons';
import { Icon } from './Icon';

/** `organization`: an exact match of the organization's catalogue that the person did not untrust. */
export function TrustBadge({ trusted, organization = false }: { trusted: boolean; organization?: boolean }) {
  if (!trusted && organization) {
    return (
      <span className="badge badge-trusted">
        <Icon name="shield" size={13} />
        Trusted by your organization
      </span>
    );
  }
  return trusted ? (
    <span className="badge badge-trusted">
      <Icon name="shield" size={13} />
      Trusted
    </span>
  ) : (
    <span className="badge badge-untrusted">
      <Icon name="shieldOff" size={13} />
      Untrusted
    </span>
  );
}

const STATUS: Record<ServerStatus, { label: string; cls: string }> = {
  idle: { label: 'Idle', cls: 'badge-neutral' },
  running: { label: 'Running', cls: 'badge-ok' },
  'needs-consent': { label: 'Needs your consent to start', cls: 'badge-warning' },
  quarantined: { label: 'Quarantined', cls: 'badge-danger' },
  blocked: { label: 'Blocked by policy', cls: 'badge-danger' },
};

export function StatusBadge({ status }: { status: ServerStatus | undefined }) {
  const s = STATUS[status ?? 'idle'] ?? { label: String(status), cls: 'badge-neutral' };
  return <span className={`badge ${s.cls}`}>{s.label}</span>;
}

export function SeverityIcon({ severity, size = 15 }: { severity: Severity; size?: number }) {
  return <Icon name={severity} size={size} className={`sev-icon sev-${severity}`} />;
}

export function SeverityLabel({ severity }: { severity: Severity }) {
  return <span className={`sev-label sev-${severity}`}>{SEVERITY_LABEL[severity]}</span>;
}
