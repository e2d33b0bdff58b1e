// A server card's limits badge: the limits and whether they are enforced, in words. Green only when
// every limit asked is enforced here; a limit that is not enforced is said so, never shown as one.
import type { ServerLimitsView } from '../../../shared/api';
import { VisibleText } from '../ui/VisibleText';

export function LimitsBadge({ view }: { view: ServerLimitsView | undefined }) {
  if (!view) return null;
  const e = view.enforcement;
  const asked = [e.network, e.filesystem].filter((s) => s !== 'no limit');
  if (!asked.length && e.sandbox !== 'none') return null;
  const ok = asked.length > 0 && asked.every((s) => s === 'enforced');
  const text = asked.length ? view.badge : 'not sandboxed';
  return (
    <span className={`badge badge-long ${ok ? 'badge-ok' : 'badge-warning'}`} title={view.badge}>
      <VisibleText text={text} />
    </span>
  );
}
