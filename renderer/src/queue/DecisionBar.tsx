// The four ways to answer a call, plus an optional reason the client sees when denied.
import { useState } from 'react';
import type { DecisionRequest, PendingCall } from '../../../shared/api';
import { Icon } from '../ui/Icon';
import { RuleMaker } from './RuleMaker';

interface Props {
  call: PendingCall;
  busy: boolean;
  reason: string;
  onReason(text: string): void;
  onDecide(decision: DecisionRequest): void;
}

export function DecisionBar({ call, busy, reason, onReason, onDecide }: Props) {
  const [reasonId] = useState(() => `deny-reason-${Math.random().toString(36).slice(2)}`);
  return (
    <div className="decision-bar" role="group" aria-label="Decision">
      <div className="decision-main">
        <button
          type="button"
          className="btn btn-approve"
          disabled={busy}
          aria-keyshortcuts="a"
          title="Approve this call (key A)"
          onClick={() => onDecide({ kind: 'allow-once' })}
        >
          <Icon name="check" />
          Approve<kbd aria-hidden="true">A</kbd>
        </button>
        <button
          type="button"
          className="btn btn-deny"
          disabled={busy}
          aria-keyshortcuts="d"
          title="Deny this call (key D)"
          onClick={() => onDecide(reason.trim() ? { kind: 'deny', reason: reason.trim() } : { kind: 'deny' })}
        >
          <Icon name="x" />
          Deny<kbd aria-hidden="true">D</kbd>
        </button>
        <div className="field deny-reason">
          {/* One row on small windows: the label is read out, the placeholder says the same. */}
          <label htmlFor={reasonId} className="sr-only">
            Reason for denying (optional, the client sees it)
          </label>
          <input
            id={reasonId}
            type="text"
            maxLength={2000}
            value={reason}
            onChange={(e) => onReason(e.target.value)}
            placeholder="Reason for denying (optional, the client sees it)"
          />
        </div>
      </div>
      <div className="decision-more">
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => onDecide({ kind: 'allow-session' })}>
          Allow for this session
        </button>
        <button type="button" className="btn btn-small" disabled={busy} onClick={() => onDecide({ kind: 'always-allow' })}>
          Always allow
        </button>
        <RuleMaker call={call} busy={busy} onDecide={onDecide} />
        <span className="hint">
          {call.serverTrusted
            ? '“Always allow” saves a rule for this tool on this server; remove it in Settings.'
            : 'The server is untrusted: this call runs, but later calls still ask until you trust the server.'}
        </span>
      </div>
    </div>
  );
}
