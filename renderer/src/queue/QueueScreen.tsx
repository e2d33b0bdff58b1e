// The queue: pending calls oldest first on the left (virtualised), the selected call's detail on the
// right. After a decision, focus moves to the next waiting call.
import { useCallback, useDeferredValue, useLayoutEffect, useRef, useState } from 'react';
import type { DecisionRequest, PendingCall } from '../../../shared/api';
import { useNow } from '../hooks/useNow';
import { isTyping, useQueueKeys } from '../hooks/useQueueKeys';
import { count } from '../lib/format';
import { useActions, useApp } from '../store/context';
import { VirtualList, type VirtualListHandle } from '../ui/VirtualList';
import { CallDetail } from './CallDetail';
import { QueueCard } from './QueueCard';
import { QueueEmpty } from './QueueEmpty';
import { StoppedNotices } from './StoppedNotices';
import { LaunchRequests } from './LaunchRequests';

export const CARD_HEIGHT = 130;

export function QueueScreen() {
  const pending = useApp((s) => s.pending);
  const selectedId = useApp((s) => s.selectedId);
  const reveal = useApp((s) => s.reveal);
  const { select, decide, revealDone } = useActions();
  const now = useNow(1000);
  const list = useRef<VirtualListHandle>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const emptyHeading = useRef<HTMLHeadingElement>(null);
  const wantFocus = useRef(false);
  const wantDetailFocus = useRef(false);
  const [busy, setBusy] = useState(false);
  const [detailOpen, setDetailOpen] = useState(false);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const hadCalls = useRef(pending.length > 0);

  const index = pending.findIndex((c) => c.id === selectedId);
  const selected = index >= 0 ? pending[index] : undefined;
  // The detail renders in the background (React yields while it builds a big one), so the list stays
  // responsive. Decisions only ever apply to the call the detail is showing.
  const shown = useDeferredValue(selected);
  const showing = shown && shown.id === selected?.id ? shown : undefined;

  // Enter pressed while the detail was still catching up: focus it once it shows the selected call.
  useLayoutEffect(() => {
    if (wantDetailFocus.current && showing) {
      wantDetailFocus.current = false;
      heading.current?.focus();
    }
  });

  // The first call into an empty queue takes focus, unless the person is typing in a field: then it
  // waits for them (the live region has announced it).
  useLayoutEffect(() => {
    const has = pending.length > 0;
    if (has && !hadCalls.current && !isTyping(document.activeElement)) wantFocus.current = true;
    hadCalls.current = has;
  }, [pending.length]);

  // A notification was clicked: its card (selected by the store) takes focus, the list in view.
  useLayoutEffect(() => {
    if (!reveal) return;
    revealDone();
    const i = pending.findIndex((c) => c.id === reveal.id);
    if (i < 0) return;
    setDetailOpen(false);
    list.current?.scrollToIndex(i);
    wantFocus.current = true;
  }, [reveal, pending, revealDone]);

  // Focus follows the selection once the row is rendered (it may need a scroll first).
  useLayoutEffect(() => {
    if (!wantFocus.current) return;
    if (!selected) {
      emptyHeading.current?.focus();
      wantFocus.current = false;
      return;
    }
    const rows = list.current?.element()?.querySelectorAll<HTMLElement>('[data-id]') ?? [];
    const el = [...rows].find((r) => r.dataset.id === selected.id);
    if (el) {
      el.focus();
      wantFocus.current = false;
    } else list.current?.scrollToIndex(index);
  });

  const focusSelection = useCallback((i: number) => {
    list.current?.scrollToIndex(i);
    wantFocus.current = true;
  }, []);

  // A click selects the call and opens its detail (which, on a narrow window, covers the list).
  const openCall = useCallback(
    (id: string) => {
      select(id);
      setDetailOpen(true);
    },
    [select],
  );

  const decideCall = async (call: PendingCall | undefined, decision: DecisionRequest) => {
    if (!call || busy) return;
    setBusy(true);
    const res = await decide(call.id, decision);
    wantFocus.current = res.ok || ('error' in res && res.error === 'not-pending');
    if (wantFocus.current) setReasons(({ [call.id]: _, ...rest }) => rest);
    setDetailOpen(false);
    setBusy(false);
  };

  useQueueKeys({
    move(delta) {
      if (pending.length === 0) return;
      const i = Math.min(pending.length - 1, Math.max(0, (index < 0 ? 0 : index) + delta));
      select(pending[i]!.id);
      focusSelection(i);
    },
    approve: () => void decideCall(showing, { kind: 'allow-once' }),
    deny() {
      const reason = showing ? reasons[showing.id]?.trim() : undefined;
      void decideCall(showing, reason ? { kind: 'deny', reason } : { kind: 'deny' });
    },
    open() {
      if (!selected) return;
      setDetailOpen(true);
      wantDetailFocus.current = true;
      if (showing) heading.current?.focus();
    },
    back() {
      // From the detail (opened, or reached with Tab) back to the call's card.
      const inDetail = document.activeElement?.closest('.queue-detail') != null;
      if (!detailOpen && !inDetail) return;
      setDetailOpen(false);
      if (index >= 0) focusSelection(index);
    },
  });

  if (pending.length === 0) return <QueueEmpty headingRef={emptyHeading} />;

  return (
    <div className={`queue ${detailOpen ? 'queue-detail-open' : ''}`}>
      <section className="queue-list" aria-labelledby="queue-title">
        <header className="queue-head">
          <h1 id="queue-title">
            Waiting for you <span className="count-pill">{pending.length.toLocaleString('en-US')}</span>
          </h1>
          <StoppedNotices />
          <LaunchRequests />
          <p className="muted small keys-help">
            Oldest first · <kbd>j</kbd> <kbd>k</kbd> move · <kbd>a</kbd> approve · <kbd>d</kbd> deny · <kbd>Enter</kbd> open · <kbd>Esc</kbd> back
          </p>
        </header>
        <VirtualList
          ref={list}
          count={pending.length}
          rowHeight={CARD_HEIGHT}
          getKey={(i) => pending[i]!.id}
          role="listbox"
          label={`Pending calls, ${count(pending.length, 'call')}`}
          renderRow={(i) => (
            <QueueCard
              call={pending[i]!}
              index={i}
              total={pending.length}
              selected={pending[i]!.id === selectedId}
              now={now}
              onSelect={select}
              onOpen={openCall}
            />
          )}
        />
      </section>
      <section className="queue-detail" aria-label="Call detail">
        {shown ? (
          <CallDetail
            key={shown.id}
            ref={heading}
            call={shown}
            now={now}
            busy={busy || shown !== showing}
            reason={reasons[shown.id] ?? ''}
            onReason={(text) => setReasons((r) => ({ ...r, [shown.id]: text }))}
            onDecide={(d) => void decideCall(shown, d)}
            onBack={() => {
              setDetailOpen(false);
              focusSelection(index);
            }}
          />
        ) : (
          <p className="muted pad">Select a call to see its details.</p>
        )}
      </section>
    </div>
  );
}
