// One pending call in the queue list: the tool, who asks, what it does and what to watch, and the clock.
import { memo, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { escapeControl } from '../../../shared/escape';
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
import { UndoNote } from '../undo/UndoNote';

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
  const clockText = clock.agent ? clock.short : `${duration(now - call.createdAt)} · ${clock.short}`;
  const [meta, tight] = useTight();
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
        <code className="tool-name">
          <VisibleText text={call.tool} />
        </code>
        {call.title && (
          <span className="supplied-title" title="Title supplied by the server">
            “<VisibleText text={call.title} />” <span className="supplied-note">({suppliedTitleNote(call.serverTrusted)})</span>
          </span>
        )}
      </div>
      {/* The server's name comes whole; where it leaves no room, the clock says only the time left. */}
      <div className="card-meta" ref={meta}>
        <span className={`card-server ${call.server.length > 12 ? 'card-server-long' : ''}`} title={escapeControl(call.server)}>
          <VisibleText text={call.server} />
        </span>
        <TrustBadge trusted={call.serverTrusted} />
        <span className={`card-clock ${clock.urgent ? 'card-clock-urgent' : ''}`} title={`Waiting ${duration(now - call.createdAt)}; ${clock.short}`}>
          <Icon name="clock" size={13} />
          {tight ? clock.tiny : clockText}
        </span>
        <span className="card-clock clock-measure" aria-hidden="true">
          <Icon name="clock" size={13} />
          {clockText}
        </span>
      </div>
      <ChipRow headline={headline} moreNotable={moreNotable} label="About this call" none="No warnings" />
      <UndoNote undo={call.undo} inCard />
    </div>
  );
});

const GAP = 8; // .card-meta gap, in px

/** Whether the meta row is too narrow for the long clock beside the server's whole name (measured). */
function useTight(): [RefObject<HTMLDivElement | null>, boolean] {
  const ref = useRef<HTMLDivElement>(null);
  const [tight, setTight] = useState(false);
  const [, resized] = useState(0);
  useLayoutEffect(() => {
    const row = ref.current;
    if (!row || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver((entries) => resized(entries[0]?.contentRect.width ?? 0));
    observer.observe(row);
    return () => observer.disconnect();
  }, []);
  // Every render: the clock's words change as it ticks. (Setting the same boolean does not render again.)
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    const row = ref.current;
    if (!row || row.clientWidth === 0) return;
    let need = 0;
    for (const el of Array.from(row.children) as HTMLElement[]) {
      if (el.classList.contains('card-clock') && !el.classList.contains('clock-measure')) continue;
      need += Math.max(el.getBoundingClientRect().width, el.scrollWidth) + GAP;
    }
    setTight(need - GAP > row.clientWidth + 0.5);
  });
  return [ref, tight];
}
