// Everything about one pending call: who asks, what it does and what to watch, a preview of its effect, the full
// arguments, and the decision buttons (kept in view at the bottom).
import { forwardRef } from 'react';
import type { DecisionRequest, PendingCall } from '../../../shared/api';
import { ArgumentsView } from '../args/ArgumentsView';
import { clockTime, duration } from '../lib/format';
import { callWarnings } from '../lib/warnings';
import { waitClock } from '../lib/client-wait';
import { PreviewPanel } from '../preview/PreviewPanel';
import { TrustBadge } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';
import { DecisionBar } from './DecisionBar';
import { DetailChips } from './DetailChips';
import { InputRound } from './InputRound';
import { WarningList } from './WarningList';
import { UndoNote } from '../undo/UndoNote';

interface Props {
  call: PendingCall;
  now: number;
  busy: boolean;
  reason: string;
  onReason(text: string): void;
  onDecide(decision: DecisionRequest): void;
  /** Back to the list, on narrow windows where the detail covers it. */
  onBack(): void;
}

export const CallDetail = forwardRef<HTMLHeadingElement, Props>(function CallDetail({ call, now, busy, reason, onReason, onDecide, onBack }, headingRef) {
  const client = [call.client?.name, call.client?.version].filter(Boolean).join(' ');
  const clientSentence = waitClock(call, now).sentence;
  const warnings = callWarnings(call);
  return (
    <article className="detail" aria-labelledby={`detail-title-${call.id}`}>
      <div className="detail-scroll">
        <header className="detail-head">
          <button type="button" className="btn btn-small back-btn" onClick={onBack}>
            ← Back to the queue
          </button>
          <h2 id={`detail-title-${call.id}`} ref={headingRef} tabIndex={-1} className="detail-title">
            <code className="tool-name">
              <VisibleText text={call.tool} />
            </code>
          </h2>
          {call.title && (
            <p className="supplied-title">
              Title supplied by the server{call.serverTrusted ? '' : ', not checked'}: “<VisibleText text={call.title} />”
            </p>
          )}
          <dl className="facts">
            <dt>Server</dt>
            <dd>
              <strong>
                <VisibleText text={call.server} />
              </strong>{' '}
              <TrustBadge trusted={call.serverTrusted} />
            </dd>
            <dt>Client</dt>
            <dd>{client ? <VisibleText text={client} /> : <span className="muted">did not say</span>}</dd>
            <dt>Waiting</dt>
            <dd>
              {duration(now - call.createdAt)} since {clockTime(call.createdAt)}; denied automatically at {clockTime(call.expiresAt)}
              {call.expiresAt > now ? ` (in ${duration(call.expiresAt - now)})` : ''}
            </dd>
            {clientSentence && (
              <>
                <dt>Agent</dt>
                <dd className="client-wait">{clientSentence}</dd>
              </>
            )}
            {call.undo && (
              <>
                <dt>Undo</dt>
                <dd>
                  <UndoNote undo={call.undo} />
                </dd>
              </>
            )}
          </dl>
          <DetailChips warnings={warnings} />
        </header>
        <section aria-label="About this call" className="detail-section detail-warnings">
          <h3 className="section-title">About this call</h3>
          <WarningList warnings={warnings} />
        </section>
        {call.input && <InputRound input={call.input} />}
        <PreviewPanel call={call} />
        <ArgumentsView value={call.arguments} flagged={call.preview} />
      </div>
      <DecisionBar call={call} busy={busy} reason={reason} onReason={onReason} onDecide={onDecide} />
    </article>
  );
});
