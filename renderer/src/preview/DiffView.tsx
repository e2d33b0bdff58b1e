// Diffs two texts off the UI thread. If the diff is too costly (over the time cap) it says so and
// shows both sides in full instead.
import { useEffect, useState } from 'react';
import type { DiffOutcome } from '../diff/diff-protocol';
import { useDiffEngine } from '../diff/engine-context';
import { DiffLines } from './DiffLines';
import { TextBlock } from './TextBlock';

interface Props {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}

export function DiffView({ before, after, beforeLabel, afterLabel }: Props) {
  const engine = useDiffEngine();
  const [outcome, setOutcome] = useState<DiffOutcome | 'pending'>('pending');
  const [side, setSide] = useState<'before' | 'after'>('after');

  useEffect(() => {
    if (!engine) {
      setOutcome({ ok: false, reason: 'error', message: 'no diff engine' });
      return;
    }
    const ctrl = new AbortController();
    setOutcome('pending');
    void engine.diff(before, after, ctrl.signal).then((o) => {
      if (!ctrl.signal.aborted) setOutcome(o);
    });
    return () => ctrl.abort();
  }, [engine, before, after]);

  if (outcome === 'pending')
    return (
      <p className="muted" role="status">
        Comparing…
      </p>
    );
  if (outcome.ok) {
    const { added, removed } = outcome.result;
    if (added === 0 && removed === 0) return <p className="muted">No change: both texts are the same.</p>;
    return (
      <div>
        <p className="diff-stats">
          <span className="stat-add">+{added.toLocaleString('en-US')} added</span> <span className="stat-del">−{removed.toLocaleString('en-US')} removed</span>{' '}
          <span className="muted small">
            lines, {beforeLabel} → {afterLabel}
          </span>
        </p>
        <DiffLines diff={outcome.result} before={before} after={after} label={`Changes from ${beforeLabel} to ${afterLabel}`} />
      </div>
    );
  }
  return (
    <div>
      <p className="notice-inline" role="status">
        {outcome.reason === 'too-different'
          ? 'Too different to diff in reasonable time. Both versions are shown in full below.'
          : `Could not compute a diff${outcome.message ? ` (${outcome.message})` : ''}. Both versions are shown in full below.`}
      </p>
      <div className="segmented" role="group" aria-label="Version">
        <button type="button" aria-pressed={side === 'before'} onClick={() => setSide('before')}>
          {beforeLabel}
        </button>
        <button type="button" aria-pressed={side === 'after'} onClick={() => setSide('after')}>
          {afterLabel}
        </button>
      </div>
      {side === 'before' ? <TextBlock text={before} label={beforeLabel} /> : <TextBlock text={after} label={afterLabel} />}
    </div>
  );
}
