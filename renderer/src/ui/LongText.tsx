// Very long text, all of it in the page (searchable, selectable, nothing cut), split into blocks of
// lines that the browser lays out only when scrolled into view (content-visibility). A 10,000-line
// argument would otherwise cost a long layout every time the detail opens.
import { memo, useMemo } from 'react';
import { VisibleText } from './VisibleText';

const LINES_PER_CHUNK = 200;
const LINE_PX = 19;
/** Below this, plain rendering is cheap enough. */
const SMALL = 20_000;

function chunks(text: string): Array<{ text: string; lines: number }> {
  const out: Array<{ text: string; lines: number }> = [];
  let start = 0;
  while (start < text.length) {
    let end = start;
    let lines = 0;
    while (lines < LINES_PER_CHUNK && end < text.length) {
      const nl = text.indexOf('\n', end);
      end = nl === -1 ? text.length : nl + 1;
      lines += 1;
    }
    out.push({ text: text.slice(start, end), lines });
    start = end;
  }
  return out;
}

export const LongText = memo(function LongText({ text, markLeading }: { text: string; markLeading?: boolean }) {
  const parts = useMemo(() => (text.length > SMALL ? chunks(text) : undefined), [text]);
  if (!parts) return <VisibleText text={text} markLeading={markLeading} />;
  return (
    <>
      {parts.map((p, i) => (
        <span key={i} className="text-chunk" style={{ containIntrinsicSize: `auto ${p.lines * LINE_PX}px` }}>
          <VisibleText text={p.text} markLeading={markLeading && i === 0} />
        </span>
      ))}
    </>
  );
});
