// One audit entry: a summary line, and on demand its full arguments, reasons and who decided.
import { useState } from 'react';
import type { AuditEntry } from '../../../shared/api';
import { ArgumentsView } from '../args/ArgumentsView';
import { dateTime } from '../lib/format';
import { reasonTitle } from '../../../shared/reasons';
import { VisibleText } from '../ui/VisibleText';
import { entryLabel } from './entry-label';

const KIND: Record<string, string> = {
  review: 'Review',
  trust: 'Trust',
  pin: 'Pin',
  launch: 'Launch consent',
  server: 'Server',
  rule: 'Rule',
  settings: 'Settings',
  client: 'Client config',
  'server-request': 'Server request',
  access: 'Local socket',
};

/** Who made a change: the surface a person used, or Countersign itself. */
const ACTOR: Record<string, string> = {
  browser: 'browser UI',
  desktop: 'desktop app',
  cli: 'command line',
  policy: 'team policy',
  countersign: 'Countersign',
  client: "the MCP client's own form (inline approval)",
};

const BY: Record<AuditEntry['decidedBy'], string> = {
  person: 'you',
  rule: 'your saved rule',
  policy: 'the policy',
  timeout: 'timeout',
  session: 'your session allowance',
  cancelled: 'the session ending',
  client: 'the agent (its client stopped waiting)',
};

export function ActivityRow({ entry }: { entry: AuditEntry }) {
  const [open, setOpen] = useState(false);
  const kind = entry.kind && entry.kind !== 'call' ? entry.kind : undefined;
  const label = entryLabel(entry);
  return (
    <li className={`log-entry log-${entry.decision}`}>
      <button type="button" className="log-summary" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="log-time">{dateTime(entry.time)}</span>
        <span className={`badge badge-${label.tone}`}>{label.text}</span>
        <span className="log-what">
          {entry.tool && entry.tool !== '*' && (
            <>
              <code className="tool-name">
                <VisibleText text={entry.tool} />
              </code>{' '}
              on{' '}
            </>
          )}
          <strong>
            <VisibleText text={entry.server === '*' ? 'Countersign' : entry.server} />
          </strong>
        </span>
        <span className="log-by">by {BY[entry.decidedBy] ?? entry.decidedBy}</span>
        <span className="log-status muted small">
          {entry.status}
          {entry.durationMs ? ` · ${entry.durationMs} ms` : ''}
          {entry.attempts ? ` · sent ${entry.attempts.length} times` : ''}
        </span>
      </button>
      {open && (
        <div className="log-body">
          <dl className="facts">
            {kind && (
              <>
                <dt>Change</dt>
                <dd>{KIND[kind] ?? kind}</dd>
              </>
            )}
            <dt>Decided by</dt>
            <dd>{BY[entry.decidedBy] ?? entry.decidedBy}</dd>
            {entry.actor && (
              <>
                <dt>Through</dt>
                <dd>{ACTOR[entry.actor] ?? entry.actor}</dd>
              </>
            )}
            <dt>Result</dt>
            <dd>{entry.status}</dd>
            {entry.client && (
              <>
                <dt>Client</dt>
                <dd>
                  <VisibleText text={entry.client} />
                </dd>
              </>
            )}
            {entry.detail && (
              <>
                <dt>Detail</dt>
                <dd>
                  <VisibleText text={entry.detail} />
                </dd>
              </>
            )}
            {entry.attempts && (
              <>
                <dt>Retried</dt>
                <dd>
                  <ol className="attempts">
                    {entry.attempts.map((a, i) => (
                      <li key={i}>
                        {a.status} after {a.durationMs} ms
                        {a.detail && (
                          <>
                            : <VisibleText text={a.detail} />
                          </>
                        )}
                      </li>
                    ))}
                  </ol>
                </dd>
              </>
            )}
            {entry.limits && (
              <>
                <dt>Limits in force</dt>
                <dd>
                  <VisibleText text={entry.limits} />
                </dd>
              </>
            )}
            {entry.rule && (
              <>
                <dt>Allowed by your rule</dt>
                <dd>
                  <VisibleText text={entry.rule.text} />
                </dd>
              </>
            )}
            {entry.reasons.length > 0 && (
              <>
                <dt>Reasons</dt>
                <dd>
                  <ul>
                    {entry.reasons.map((r, i) => (
                      <li key={i}>
                        <VisibleText text={reasonTitle(r)} />
                      </li>
                    ))}
                  </ul>
                </dd>
              </>
            )}
            <dt>Entry</dt>
            <dd className="muted small">
              #{entry.seq} · hash {entry.hash.slice(0, 12)}…
            </dd>
          </dl>
          <ArgumentsView value={entry.arguments} />
        </div>
      )}
    </li>
  );
}
