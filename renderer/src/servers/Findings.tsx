// Warnings from the description and argument scan. Heuristics: they warn, they never decide.
import type { Finding } from '../../../shared/api';
import { SeverityIcon, SeverityLabel } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';

export function Findings({ findings }: { findings: Finding[] }) {
  if (!findings.length) return null;
  return (
    <ul className="warnings" aria-label="Scan findings">
      {findings.map((f, i) => (
        <li key={i} className={`warning sev-bg-${f.severity}`}>
          <SeverityIcon severity={f.severity} />
          <div>
            <div className="warning-title">
              <SeverityLabel severity={f.severity} />
              <VisibleText text={f.message} />
              {f.field && (
                <span className="scan-tag">
                  in{' '}
                  <code>
                    <VisibleText text={f.field} />
                  </code>
                </span>
              )}
            </div>
            {f.excerpt && (
              <pre className="excerpt" tabIndex={0}>
                <VisibleText text={f.excerpt} />
              </pre>
            )}
          </div>
        </li>
      ))}
    </ul>
  );
}
