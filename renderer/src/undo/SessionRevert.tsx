// "Revert everything this agent changed in this session, or since a time": pick one of the sessions
// that changed files (or all of that agent's sessions) and an optional time, then the same preview as a
// single undo, newest change per file undone first.
import { useId, useState } from 'react';
import type { UndoableCall, UndoTarget } from '../../../shared/undo';
import { clockTime, dateTime } from '../lib/format';
import { Icon } from '../ui/Icon';
import { UndoReview } from './UndoReview';
import { sinceIso, undoSessions } from './undo-sessions';
import { escapeControl } from '../../../shared/escape';

export function SessionRevert({ undoable }: { undoable: UndoableCall[] }) {
  const id = useId();
  const sessions = undoSessions(undoable);
  const [open, setOpen] = useState(false);
  const [picked, setPicked] = useState('');
  const [allOfAgent, setAllOfAgent] = useState(false);
  const [since, setSince] = useState('');
  const [review, setReview] = useState<{ target: UndoTarget; title: string }>();
  const session = sessions.find((s) => s.session === picked) ?? sessions[0];

  const start = () => {
    if (!session) return;
    const at = sinceIso(since);
    const agent = session.client ? escapeControl(session.client) : 'this agent';
    const target: UndoTarget = { ...(allOfAgent && session.client ? { client: session.client } : { session: session.session }), ...(at ? { since: at } : {}) };
    const scope = allOfAgent && session.client ? 'in all its sessions' : 'in this session';
    setReview({ target, title: `Revert everything ${agent} changed ${scope}${at ? ` since ${dateTime(at)}` : ''}` });
  };

  // The review stays open after it applied (then nothing is left to revert): it shows what was done.
  if (review) return <UndoReview target={review.target} title={review.title} onClose={() => (setReview(undefined), setOpen(false))} />;
  if (!sessions.length) return null;
  if (!open)
    return (
      <button type="button" className="btn btn-small" onClick={() => setOpen(true)}>
        <Icon name="undo" size={14} />
        Revert a session…
      </button>
    );
  return (
    <form
      className="session-revert block"
      aria-label="Revert a session"
      onSubmit={(e) => {
        e.preventDefault();
        start();
      }}
    >
      <h2>Revert everything an agent changed</h2>
      <p className="small muted">
        Every file the agent changed in the session, or since the time you give, is put back; the newest change per file is undone first. You see every file
        before anything is written.
      </p>
      <div className="filters">
        <div className="field field-grow">
          <label htmlFor={`${id}-session`}>Session</label>
          <select id={`${id}-session`} value={session?.session ?? ''} onChange={(e) => setPicked(e.target.value)}>
            {sessions.map((s) => (
              <option key={s.session} value={s.session}>
                {escapeControl(s.client ?? 'an unnamed client')} · {s.calls} {s.calls === 1 ? 'change' : 'changes'} · {clockTime(Date.parse(s.first))}–
                {clockTime(Date.parse(s.last))}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-since`}>Since (optional)</label>
          <input id={`${id}-since`} type="datetime-local" step={1} value={since} onChange={(e) => setSince(e.target.value)} />
        </div>
      </div>
      {session?.client && (
        <label className="check">
          <input type="checkbox" checked={allOfAgent} onChange={(e) => setAllOfAgent(e.target.checked)} /> Every session of {escapeControl(session.client)}, not
          only this one
        </label>
      )}
      <div className="btn-row">
        <button type="submit" className="btn btn-primary">
          Preview the revert
        </button>
        <button type="button" className="btn" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
