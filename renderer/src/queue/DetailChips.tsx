// The call's worst warnings as one line of chips, for short windows: there the preview moves up
// (see detail.css), and these keep the warnings' headline above it. The full list follows the preview.
import type { Warning } from '../lib/warnings';
import { SeverityIcon } from '../ui/Badges';

const SHOWN = 3;

export function DetailChips({ warnings }: { warnings: Warning[] }) {
  const worth = warnings.filter((w) => w.severity !== 'info');
  if (worth.length === 0) return null;
  return (
    <ul className="card-warnings detail-chips" aria-label="Main warnings (all of them below the preview)">
      {worth.slice(0, SHOWN).map((w) => (
        <li key={w.key} className={`chip chip-${w.severity}`} title={w.title}>
          <SeverityIcon severity={w.severity} size={12} />
          <span>{w.short}</span>
        </li>
      ))}
      {worth.length > SHOWN && <li className="chip chip-more">+{worth.length - SHOWN} more below</li>}
    </ul>
  );
}
