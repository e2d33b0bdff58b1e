// A whole text with line numbers, for "new file" content and both sides of a too-different diff.
// Very long texts render in slices so showing them never blocks the window for long.
import { useMemo, useState } from 'react';
import { VisibleText } from '../ui/VisibleText';

const SLICE = 500;

export function TextBlock({ text, label }: { text: string; label: string }) {
  const lines = useMemo(() => {
    const l = text.split('\n');
    if (l.length > 1 && l[l.length - 1] === '') l.pop();
    return l;
  }, [text]);
  const [shown, setShown] = useState(SLICE);
  return (
    <div className="textblock" role="region" tabIndex={0} aria-label={label}>
      <div className="code-lines">
        {lines.slice(0, shown).map((line, i) => (
          <div className="cl" key={i}>
            <span className="ln" aria-hidden="true">
              {i + 1}
            </span>
            <code className="cl-text">
              <VisibleText text={line} />
            </code>
          </div>
        ))}
      </div>
      {shown < lines.length && (
        <button type="button" className="btn btn-small gap-btn" onClick={() => setShown(shown + SLICE * 4)}>
          Show more ({(lines.length - shown).toLocaleString('en-US')} more lines)
        </button>
      )}
    </div>
  );
}
