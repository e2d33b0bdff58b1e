// The left navigation: the screens, the queue count, and pause.
import { useApp } from '../store/context';
import { Icon, type IconName } from '../ui/Icon';
import { PauseToggle } from './PauseToggle';

export type Screen = 'queue' | 'servers' | 'clients' | 'activity' | 'settings';

const ITEMS: Array<{ id: Screen; label: string; icon: IconName }> = [
  { id: 'queue', label: 'Queue', icon: 'queue' },
  { id: 'servers', label: 'Servers', icon: 'server' },
  { id: 'clients', label: 'Clients', icon: 'clients' },
  { id: 'activity', label: 'Activity', icon: 'activity' },
  { id: 'settings', label: 'Settings', icon: 'settings' },
];

export function Nav({ screen, onScreen }: { screen: Screen; onScreen(s: Screen): void }) {
  // Servers waiting for approval to start are queue items too.
  const pending = useApp((s) => s.pending.length + s.launches.length);
  const reviews = useApp((s) => (s.servers ?? []).reduce((n, sv) => n + (sv.pendingChanges ?? 0) + (sv.status === 'needs-consent' ? 1 : 0), 0));
  const version = useApp((s) => s.status?.version);
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          ✓
        </span>
        <span>Countersign</span>
      </div>
      <ul className="nav-list">
        {ITEMS.map((item) => {
          const n = item.id === 'queue' ? pending : item.id === 'servers' ? reviews : 0;
          const extra = n > 0 ? (item.id === 'queue' ? `, ${n} waiting` : `, ${n} need review`) : '';
          return (
            <li key={item.id}>
              <button
                type="button"
                className="nav-item"
                aria-current={screen === item.id ? 'page' : undefined}
                aria-label={`${item.label}${extra}`}
                onClick={() => onScreen(item.id)}
              >
                <Icon name={item.icon} />
                <span className="nav-label">{item.label}</span>{' '}
                {n > 0 && (
                  <span className={`nav-count ${item.id === 'servers' ? 'nav-count-warn' : ''}`} aria-hidden="true">
                    {n > 9999 ? '9999+' : n}
                  </span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
      <div className="nav-foot">
        <PauseToggle />
        {version && <p className="muted small">Countersign {version}</p>}
      </div>
    </nav>
  );
}
