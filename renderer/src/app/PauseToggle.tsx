// Pause holds every call for review, whatever rules or trust say.
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
    <button type="button" className={`btn btn-block ${paused ? 'btn-warn' : ''}`} aria-pressed={paused} onClick={() => void toggle()}>
      <Icon name={paused ? 'play' : 'pause'} />
      {paused ? 'Resume' : 'Pause all calls'}
    </button>
  );
}
