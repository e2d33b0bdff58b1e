// All warnings for a call, worst first, each with its severity in words as well as colour.
import type { Warning } from '../lib/warnings';
import { SeverityIcon, SeverityLabel } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';

export function WarningList({ warnings }: { warnings: Warning[] }) {
  if (warnings.length === 0) return <p className="muted">No warnings for this call.</p>;
  return (
    <ul className="warnings" aria-label="Warnings">
      {warnings.map((w) => (
        <li key={w.key} className={`warning sev-bg-${w.severity}`}>
          <SeverityIcon severity={w.severity} />
          <div>
            <div className="warning-title">
              <SeverityLabel severity={w.severity} />
              <span>{w.title}</span>
              {w.scan && <span className="scan-tag">description/argument scan</span>}
            </div>
            {w.detail && <div className="warning-detail">{w.detail}</div>}
            {w.excerpt && <pre className="excerpt"><VisibleText text={w.excerpt} /></pre>}
          </div>
        </li>
      ))}
    </ul>
  );
}
