// Calls the agent stopped waiting for before anyone decided. Their cards are gone (nothing can be
// approved any more); this says why, instead of letting them vanish.
import { useApp, useActions } from '../store/context';
import { duration } from '../lib/format';
import { VisibleText } from '../ui/VisibleText';

export function StoppedNotices() {
  const stopped = useApp((s) => s.stopped);
  const { dismissStopped } = useActions();
  if (stopped.length === 0) return null;
  return (
    <ul className="stopped-list" aria-label="Calls the agent stopped waiting for">
      {stopped.map((s) => (
        <li key={s.id} className="stopped">
          <span>
            <strong>The agent stopped waiting</strong> for{' '}
            <code className="tool-name">
              <VisibleText text={s.tool} />
            </code>{' '}
            on <VisibleText text={s.server} /> after {duration(s.waitedMs)}. It was not run.
          </span>
          <button type="button" className="btn btn-small" onClick={() => dismissStopped(s.id)}>
            Dismiss
          </button>
        </li>
      ))}
    </ul>
  );
}
