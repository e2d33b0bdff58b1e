// Renders diff rows: removed and added lines with both line numbers, unchanged stretches folded
// behind a button. Signs are spelled out for screen readers. A huge diff renders in pages of rows, so
// drawing it never blocks the window for long; what remains below is always counted on a button.
import { useMemo, useState } from 'react';
import { ADD, DEL, rowAt, splitLines, type DiffGap, type DiffLine, type PackedDiff } from '../diff/diff-core';
import { VisibleText } from '../ui/VisibleText';

const SIGN = { add: '+', del: '−', ctx: ' ' } as const;
const SPOKEN = { add: 'added: ', del: 'removed: ', ctx: '' } as const;
const GAP_STEP = 200;
export const ROW_PAGE = 200;

function Line({ line }: { line: DiffLine }) {
  return (
    <div className={`dl dl-${line.t}`} data-kind={line.t}>
      <span className="ln" aria-hidden="true">
        {line.a ?? ''}
      </span>
      <span className="ln" aria-hidden="true">
        {line.b ?? ''}
      </span>
      <span className="sign" aria-hidden="true">
        {SIGN[line.t]}
      </span>
      <code className="dl-text">
        {SPOKEN[line.t] && <span className="sr-only">{SPOKEN[line.t]}</span>}
        <VisibleText text={line.text} />
      </code>
    </div>
  );
}

function Gap({ gap, oldLines }: { gap: DiffGap; oldLines: string[] }) {
  const [shown, setShown] = useState(0);
  const rest = gap.count - shown;
  const lines: DiffLine[] = [];
  for (let i = 0; i < shown; i++) lines.push({ t: 'ctx', a: gap.a + i, b: gap.b + i, text: oldLines[gap.a - 1 + i] ?? '' });
  return (
    <>
      {lines.map((l, i) => (
        <Line key={i} line={l} />
      ))}
      {rest > 0 && (
        <button type="button" className="dl-gap" onClick={() => setShown(shown + Math.min(rest, GAP_STEP))}>
          {rest <= GAP_STEP
            ? `Show ${rest.toLocaleString('en-US')} unchanged lines`
            : `${rest.toLocaleString('en-US')} unchanged lines · show ${GAP_STEP} more`}
        </button>
      )}
    </>
  );
}

interface Props {
  diff: PackedDiff;
  before: string;
  after: string;
  label: string;
}

export function DiffLines({ diff, before, after, label }: Props) {
  const [limit, setLimit] = useState(ROW_PAGE);
  const oldLines = useMemo(() => splitLines(before), [before]);
  const newLines = useMemo(() => splitLines(after), [after]);
  const total = diff.kinds.length;
  const shown = Math.min(limit, total);
  let changedBelow = 0;
  for (let i = shown; i < total; i++) if (diff.kinds[i] === ADD || diff.kinds[i] === DEL) changedBelow++;
  const rows = [];
  for (let i = 0; i < shown; i++) {
    const r = rowAt(diff, i, oldLines, newLines);
    rows.push(r.t === 'gap' ? <Gap key={i} gap={r} oldLines={oldLines} /> : <Line key={i} line={r} />);
  }
  return (
    <div className="diff" role="region" tabIndex={0} aria-label={label}>
      {rows}
      {shown < total && (
        <button type="button" className="dl-gap dl-more" onClick={() => setLimit(limit + ROW_PAGE)}>
          {`${changedBelow.toLocaleString('en-US')} more changed lines below (${(total - shown).toLocaleString('en-US')} rows) · show the next ${ROW_PAGE}`}
        </button>
      )}
    </div>
  );
}
