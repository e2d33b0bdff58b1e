// Renders diff rows: removed and added lines with both line numbers, unchanged stretches folded
// behind a button. Signs are spelled out for screen readers.
import { useState } from 'react';
import type { DiffLine, DiffRow } from '../diff/diff-core';
import { VisibleText } from '../ui/VisibleText';

const SIGN = { add: '+', del: '−', ctx: ' ' } as const;
const SPOKEN = { add: 'added: ', del: 'removed: ', ctx: '' } as const;
const GAP_STEP = 200;

function Line({ line }: { line: DiffLine }) {
  return (
    <div className={`dl dl-${line.t}`} data-kind={line.t}>
      <span className="ln" aria-hidden="true">{line.a ?? ''}</span>
      <span className="ln" aria-hidden="true">{line.b ?? ''}</span>
      <span className="sign" aria-hidden="true">{SIGN[line.t]}</span>
      <code className="dl-text">
        {SPOKEN[line.t] && <span className="sr-only">{SPOKEN[line.t]}</span>}
        <VisibleText text={line.text} />
      </code>
    </div>
  );
}

function Gap({ lines }: { lines: DiffLine[] }) {
  const [shown, setShown] = useState(0);
  const rest = lines.length - shown;
  return (
    <>
      {lines.slice(0, shown).map((l, i) => <Line key={i} line={l} />)}
      {rest > 0 && (
        <button type="button" className="dl-gap" onClick={() => setShown(shown + Math.min(rest, GAP_STEP))}>
          {rest <= GAP_STEP ? `Show ${rest.toLocaleString('en-US')} unchanged lines` : `${rest.toLocaleString('en-US')} unchanged lines · show ${GAP_STEP} more`}
        </button>
      )}
    </>
  );
}

export function DiffLines({ rows, label }: { rows: DiffRow[]; label: string }) {
  return (
    <div className="diff" role="region" aria-label={label}>
      {rows.map((r, i) => (r.t === 'gap' ? <Gap key={i} lines={r.lines} /> : <Line key={i} line={r} />))}
    </div>
  );
}
