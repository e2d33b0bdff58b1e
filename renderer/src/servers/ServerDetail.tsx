// One server: what it is, what runs, what it offers, and what waits for review.
import type { UiServer } from '../store/normalize';
import { useApp } from '../store/context';
import { StatusBadge, TrustBadge } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';
import { CatalogueNote } from './CatalogueNote';
import { ChangeReview } from './ChangeReview';
import { organizationTrusts } from '../../../shared/catalogue-text';
import { Findings } from './Findings';
import { LaunchPanel } from './LaunchPanel';
import { LimitsBadge } from './LimitsBadge';
import { LimitsPanel } from './LimitsPanel';
import { ServerActions } from './ServerActions';
import { ToolList } from './ToolList';

export function ServerDetail({ server, onRemoved }: { server: UiServer; onRemoved(): void }) {
  const changes = useApp((s) => s.changes.find((c) => c.server === server.name));
  const id = server.identity;
  const says = [id?.title ?? id?.name, id?.version && `version ${id.version}`, id?.protocolVersion && `protocol ${id.protocolVersion}`]
    .filter(Boolean)
    .join(', ');
  return (
    <div className="server-detail pad">
      <header className="server-head">
        <h2>
          <VisibleText text={server.name} />
        </h2>
        <div className="badge-row">
          <StatusBadge status={server.status} />
          <TrustBadge trusted={server.trusted} organization={organizationTrusts(server.catalogue)} />
          <LimitsBadge view={server.limits} />
          <span className="muted small">{server.sessions === 1 ? '1 open session' : `${server.sessions} open sessions`}</span>
        </div>
        {says && (
          <p className="muted small">
            The server says it is: <VisibleText text={says} />
          </p>
        )}
      </header>
      <Findings findings={server.findings ?? []} />
      <CatalogueNote view={server.catalogue} />
      {server.blockedBy && (
        <div className="banner banner-danger">
          {/managed policy/.test(server.blockedBy) ? 'Blocked (managed by your organization)' : 'Blocked by the team policy'}:{' '}
          <VisibleText text={server.blockedBy} />
        </div>
      )}
      {server.managed && server.managed.some((m) => !m.startsWith('blocked')) && (
        <div className="banner" role="note" aria-label="Managed by your organization">
          Managed by your organization:{' '}
          {server.managed
            .filter((m) => !m.startsWith('blocked'))
            .map((m, i) => (
              <span key={i}>
                {i > 0 && '; '}
                <VisibleText text={m} />
              </span>
            ))}
        </div>
      )}
      {server.lastError && (
        <div className="banner banner-danger">
          Last start failed: <VisibleText text={server.lastError} />
        </div>
      )}
      {server.commandNotFound && (
        <div className="banner banner-danger" role="note">
          It will not start: <VisibleText text={server.commandNotFound} />
        </div>
      )}
      {server.slowStart && (
        <div className="banner" role="note" aria-label="Slow start">
          <strong>Its last start took {Math.round(server.slowStart.ms / 1000)} s to answer</strong> (clients often give up after 60 s). What usually causes it:
          <ul className="small">
            {server.slowStart.causes.map((c, i) => (
              <li key={i}>
                <VisibleText text={c} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {(server.quarantine?.length ?? 0) > 0 && (
        <div className="banner banner-danger" role="note">
          <strong>Quarantined: no call passes until this is resolved.</strong>
          <ul>
            {server.quarantine!.map((q, i) => (
              <li key={i}>
                <VisibleText text={q} />
              </li>
            ))}
          </ul>
        </div>
      )}
      <ServerActions server={server} onRemoved={onRemoved} />
      <LaunchPanel server={server} />
      <LimitsPanel server={server} />
      {changes && changes.tools.length > 0 && <ChangeReview changes={changes} />}
      <ToolList server={server} />
    </div>
  );
}
