// Renders diff rows: removed and added lines with both line numbers, unchanged stretches folded
// behind a button. Signs are spelled out for screen readers. A huge diff renders in pages, so drawing
// it never blocks the window for long; the remaining count is always shown.
import { useMemo, useState } from 'react';
import { splitLines, type DiffGap, type DiffLine, type DiffRow } from '../diff/diff-core';
import { VisibleText } from '../ui/VisibleText';

const SIGN = { add: '+', del: '−', ctx: ' ' } as const;
const SPOKEN = { add: 'added: ', del: 'removed: ', ctx: '' } as const;
const GAP_STEP = 200;
export const ROW_PAGE = 200;

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

function Gap({ gap, oldLines }: { gap: DiffGap; oldLines: () => string[] }) {
  const [shown, setShown] = useState(0);
  const rest = gap.count - shown;
  const lines: DiffLine[] = [];
  if (shown > 0) {
    const all = oldLines();
    for (let i = 0; i < shown; i++) lines.push({ t: 'ctx', a: gap.a + i, b: gap.b + i, text: all[gap.a - 1 + i] ?? '' });
  }
  return (
    <>
      {lines.map((l, i) => <Line key={i} line={l} />)}
      {rest > 0 && (
        <button type="button" className="dl-gap" onClick={() => setShown(shown + Math.min(rest, GAP_STEP))}>
          {rest <= GAP_STEP ? `Show ${rest.toLocaleString('en-US')} unchanged lines` : `${rest.toLocaleString('en-US')} unchanged lines · show ${GAP_STEP} more`}
        </button>
      )}
    </>
  );
}

function changedIn(rows: DiffRow[]): number {
  return rows.reduce((n, r) => n + (r.t === 'add' || r.t === 'del' ? 1 : 0), 0);
}

export function DiffLines({ rows, label, before }: { rows: DiffRow[]; label: string; before: string }) {
  const [limit, setLimit] = useState(ROW_PAGE);
  // Split the old text only when a gap is first opened.
  const oldLines = useMemo(() => {
    let cache: string[] | undefined;
    return () => (cache ??= splitLines(before));
  }, [before]);
  const rest = rows.slice(limit);
  return (
    <div className="diff" role="region" aria-label={label}>
      {rows.slice(0, limit).map((r, i) => (r.t === 'gap' ? <Gap key={i} gap={r} oldLines={oldLines} /> : <Line key={i} line={r} />))}
      {rest.length > 0 && (
        <button type="button" className="dl-gap dl-more" onClick={() => setLimit(limit + ROW_PAGE)}>
          {`${changedIn(rest).toLocaleString('en-US')} more changed lines below (${rest.length.toLocaleString('en-US')} rows) · show the next ${ROW_PAGE}`}
        </button>
      )}
    </div>
  );
}
