// One pending call in the queue list: the tool, who asks, what it does and what to watch, and the clock.
import { memo } from 'react';
import type { PendingCall } from '../../../shared/api';
import { Icon } from '../ui/Icon';
import { TrustBadge } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';
import { duration } from '../lib/format';
import { callWarnings } from '../lib/warnings';
import { waitClock } from '../lib/client-wait';
import { splitHeadline } from '../../../shared/card-order';
import { suppliedTitleNote } from '../../../shared/call-warnings';
import { ChipRow } from './ChipRow';

interface Props {
  call: PendingCall;
  index: number;
  total: number;
  selected: boolean;
  now: number;
  onSelect(id: string): void;
  /** A click opens the call (on a narrow window the detail then covers the list). */
  onOpen(id: string): void;
}

export const QueueCard = memo(function QueueCard({ call, index, total, selected, now, onSelect, onOpen }: Props) {
  // The same headline the detail shows first; notes stay in the detail.
  const { headline, moreNotable } = splitHeadline(callWarnings(call));
  const clock = waitClock(call, now);
  return (
    <div
      role="option"
      id={`call-${call.id}`}
      data-id={call.id}
      aria-selected={selected}
      aria-posinset={index + 1}
      aria-setsize={total}
      tabIndex={selected ? 0 : -1}
      className={`card ${selected ? 'card-selected' : ''}`}
      onClick={() => onOpen(call.id)}
      onFocus={() => !selected && onSelect(call.id)}
    >
      <div className="card-tool">
        <code className="tool-name"><VisibleText text={call.tool} /></code>
        {call.title && (
          <span className="supplied-title" title="Title supplied by the server">
            “<VisibleText text={call.title} />” <span className="supplied-note">({suppliedTitleNote(call.serverTrusted)})</span>
          </span>
        )}
      </div>
      <div className="card-meta">
        <span className="card-server"><VisibleText text={call.server} /></span>
        <TrustBadge trusted={call.serverTrusted} />
        <span className={`card-clock ${clock.urgent ? 'card-clock-urgent' : ''}`} title={`Waiting ${duration(now - call.createdAt)}`}>
          <Icon name="clock" size={13} />
          {/* When the agent's own clock is the nearer one, it alone fits a narrow card. */}
          {clock.agent ? clock.short : `${duration(now - call.createdAt)} · ${clock.short}`}
        </span>
      </div>
      <ChipRow headline={headline} moreNotable={moreNotable} label="About this call" none="No warnings" />
    </div>
  );
});
