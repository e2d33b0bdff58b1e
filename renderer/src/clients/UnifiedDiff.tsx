// A unified diff of a client's config file, as the broker made it (values of env and headers masked).
// Added and removed lines are coloured and spelled out for screen readers; file text is shown as data.
import { VisibleText } from '../ui/VisibleText';

function kind(line: string): 'add' | 'del' | 'hunk' | 'head' | 'ctx' {
  if (line.startsWith('+++') || line.startsWith('---')) return 'head';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('@@')) return 'hunk';
  return 'ctx';
}

const SPOKEN = { add: 'added: ', del: 'removed: ', hunk: '', head: '', ctx: '' } as const;

export function UnifiedDiff({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    <div className="udiff" role="region" tabIndex={0} aria-label={label}>
      {lines.map((line, i) => {
        const k = kind(line);
        // The sign stands apart, so the line's own indentation reads as indentation.
        const signed = k === 'add' || k === 'del' || k === 'ctx';
        return (
          <div key={i} className={`udiff-line udiff-${k}`} data-kind={k}>
            {signed && (
              <span className="udiff-sign" aria-hidden="true">
                {line[0] === ' ' ? ' ' : k === 'add' ? '+' : '−'}
              </span>
            )}
            {SPOKEN[k] && <span className="sr-only">{SPOKEN[k]}</span>}
            <code>
              <VisibleText text={signed ? line.slice(1) : line} />
            </code>
          </div>
        );
      })}
    </div>
  );
}
