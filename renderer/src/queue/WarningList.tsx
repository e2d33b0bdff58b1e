// What the call does and what to watch, in the shared order: at most three stand before the preview,
// the rest one click away. Each says where it comes from (enforced, Countersign's finding, the cautious
// default, the server's claim); a claim nothing checked stands beside the default it would have lifted.
import { useState } from 'react';
import { isFact, lineLabel, splitHeadline } from '../../../shared/card-order';
import { sourceLabel } from '../../../shared/call-warnings';
import type { Warning } from '../lib/warnings';
import { SeverityIcon } from '../ui/Badges';
import { VisibleText } from '../ui/VisibleText';

function WarningItem({ w }: { w: Warning }) {
  return (
    <li className={`warning sev-bg-${w.severity}${isFact(w) ? ' warning-fact' : ''}`} data-source={w.source}>
      <SeverityIcon severity={w.severity} />
      <div>
        <div className="warning-title">
          <span className={`sev-label sev-${w.severity}`}>{lineLabel(w)}</span>
          <span>{w.title}</span>
          <span className={`source-tag source-${w.source}`}>{sourceLabel(w)}</span>
        </div>
        {w.claim && <div className="warning-claim">{w.claim.text}</div>}
        {w.detail && <div className="warning-detail">{w.detail}</div>}
        {w.excerpt && (
          <pre className="excerpt" tabIndex={0}>
            <VisibleText text={w.excerpt} />
          </pre>
        )}
      </div>
    </li>
  );
}

export function WarningList({ warnings }: { warnings: Warning[] }) {
  const [open, setOpen] = useState(false);
  if (warnings.length === 0) return <p className="muted">Nothing to note about this call.</p>;
  const { headline, more } = splitHeadline(warnings);
  const shown = open ? [...headline, ...more] : headline;
  return (
    <>
      {shown.length > 0 && (
        <ul className="warnings" aria-label="About this call">
          {shown.map((w) => (
            <WarningItem key={w.key} w={w} />
          ))}
        </ul>
      )}
      {more.length > 0 && (
        <button type="button" className="btn btn-small warnings-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show fewer' : `Show ${more.length} more`}
        </button>
      )}
    </>
  );
}
