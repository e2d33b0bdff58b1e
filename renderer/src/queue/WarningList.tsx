// A call's warnings, worst consequence first: at most three stand before the preview, the rest one
// click away. Each says where it comes from (enforced, Countersign's finding, the server's claim).
import { useState } from 'react';
import { sourceLabel, splitHeadline } from '../../../shared/call-warnings';
import type { Warning } from '../lib/warnings';
import { SeverityIcon, SeverityLabel } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';

function WarningItem({ w }: { w: Warning }) {
  return (
    <li className={`warning sev-bg-${w.severity}`} data-source={w.source}>
      <SeverityIcon severity={w.severity} />
      <div>
        <div className="warning-title">
          <SeverityLabel severity={w.severity} />
          <span>{w.title}</span>
          <span className={`source-tag source-${w.source}`}>{sourceLabel(w)}</span>
        </div>
        {w.detail && <div className="warning-detail">{w.detail}</div>}
        {w.excerpt && <pre className="excerpt"><VisibleText text={w.excerpt} /></pre>}
      </div>
    </li>
  );
}

export function WarningList({ warnings }: { warnings: Warning[] }) {
  const [open, setOpen] = useState(false);
  if (warnings.length === 0) return <p className="muted">No warnings for this call.</p>;
  const { headline, more } = splitHeadline(warnings);
  const shown = open ? [...headline, ...more] : headline;
  return (
    <>
      {shown.length > 0 && (
        <ul className="warnings" aria-label="Warnings">
          {shown.map((w) => <WarningItem key={w.key} w={w} />)}
        </ul>
      )}
      {more.length > 0 && (
        <button type="button" className="btn btn-small warnings-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show fewer' : `Show ${more.length} more ${more.length === 1 ? 'note' : 'notes'}`}
        </button>
      )}
    </>
  );
}
