// Pause denies every call (the client is told why), whatever rules or trust say, until resumed.
import { useApi, useActions, useApp } from '../store/context';
import { Icon } from '../ui/Icon';

export function PauseToggle() {
  const api = useApi();
  const { run, refreshStatus } = useActions();
  const paused = useApp((s) => s.status?.paused ?? false);
  const unsupported = useApp((s) => s.unsupported.setPaused);
  if (unsupported) return null;
  const toggle = async () => {
    await run('setPaused', () => api.setPaused(!paused));
    await refreshStatus();
  };
  return (
    <div>
      <button
        type="button"
        className={`btn btn-block ${paused ? 'btn-warn' : ''}`}
        aria-label={paused ? 'Resume' : 'Pause all calls'}
        aria-describedby="pause-hint"
        onClick={() => void toggle()}
      >
        <Icon name={paused ? 'play' : 'pause'} />
        {/* A narrow window keeps the first word: "Pause" (the name stays "Pause all calls"). */}
        <span className="pause-label">
          {paused ? (
            'Resume'
          ) : (
            <>
              Pause<span className="pause-more"> all calls</span>
            </>
          )}
        </span>
      </button>
      <p id="pause-hint" className="muted small pause-hint">
        {paused ? 'Every call is denied until you resume.' : 'While paused, every call is denied.'}
      </p>
    </div>
  );
}
