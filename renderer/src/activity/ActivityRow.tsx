// One audit entry: a summary line, and on demand its full arguments, reasons and who decided.
import { useEffect, useRef, useState, type ReactNode } from 'react';
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
  undo: 'Undo',
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

interface Props {
  entry: AuditEntry;
  /** Its undo state and button (Undo, Undone by #n), beside the summary. */
  undo?: ReactNode;
  /** The undo preview, when the person opened it for this entry. */
  review?: ReactNode;
  /** Set (with a new value each time) to open this entry and bring it into view. */
  reveal?: number;
}

export function ActivityRow({ entry, undo, review, reveal }: Props) {
  const [open, setOpen] = useState(false);
  const summary = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (reveal === undefined) return;
    setOpen(true);
    summary.current?.scrollIntoView?.({ block: 'center' });
    summary.current?.focus();
  }, [reveal]);
  const kind = entry.kind && entry.kind !== 'call' ? entry.kind : undefined;
  const label = entryLabel(entry);
  return (
    <li className={`log-entry log-${entry.decision}`} id={`log-${entry.seq}`}>
      <button type="button" className="log-summary" ref={summary} aria-expanded={open} onClick={() => setOpen(!open)}>
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
      {undo}
      {review && <div className="log-review">{review}</div>}
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
              #{entry.seq} · hash {entry.hash.slice(0, 12)}…{entry.snapshot ? ` · snapshot ${entry.snapshot}` : ''}
            </dd>
          </dl>
          <ArgumentsView value={entry.arguments} />
        </div>
      )}
    </li>
  );
}
