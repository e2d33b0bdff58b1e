// The call's headline warnings as one line of chips, for short windows: there the preview moves up
// (see detail.css), and these keep the same headline the card shows above it. The full list follows.
import { sourceLabel, splitHeadline } from '../../../shared/call-warnings';
import type { Warning } from '../lib/warnings';
import { SeverityIcon } from '../ui/Badges';

export function DetailChips({ warnings }: { warnings: Warning[] }) {
  const { headline, more } = splitHeadline(warnings);
  if (headline.length === 0) return null;
  const hidden = more.filter((w) => w.severity !== 'info').length;
  return (
    <ul className="card-warnings detail-chips" aria-label="Main warnings (all of them below the preview)">
      {headline.map((w) => (
        <li key={w.key} className={`chip chip-${w.severity} chip-${w.source}`} title={`${sourceLabel(w)}: ${w.title}`}>
          <SeverityIcon severity={w.severity} size={12} />
          <span>{w.short}</span>
        </li>
      ))}
      {hidden > 0 && <li className="chip chip-more">+{hidden} more below</li>}
    </ul>
  );
}
