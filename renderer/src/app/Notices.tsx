// Short-lived messages: decision notes from the broker and errors. Announced politely.
import { useActions, useApp } from '../store/context';
import { Icon } from '../ui/Icon';
import { VisibleText } from '../ui/VisibleText';

export function Notices() {
  const notices = useApp((s) => s.notices);
  const { dismiss } = useActions();
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`}>
          <Icon name={n.kind === 'error' ? 'warning' : 'info'} />
          <span className="notice-text">
            <VisibleText text={n.text} />
          </span>
          <button type="button" className="btn-icon" aria-label="Dismiss" onClick={() => dismiss(n.id)}>
            <Icon name="x" />
          </button>
        </div>
      ))}
    </div>
  );
}
