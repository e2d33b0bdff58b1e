// Shows server text as data: React escapes markup, and segmentText marks invisible characters,
// controls and odd whitespace. Every piece of server text on screen goes through here.
import { memo } from 'react';
import { segmentText } from '../lib/visible-text';

export const VisibleText = memo(function VisibleText({ text, className, markLeading }: { text: string; className?: string; markLeading?: boolean }) {
  const segments = segmentText(text, { leading: markLeading });
  return (
    <span className={className}>
      {segments.map((s, i) =>
        s.kind === 'text' ? (
          s.text
        ) : (
          <span key={i} className={`mark-${s.cls}`} title={s.title}>
            {s.text}
          </span>
        ),
      )}
    </span>
  );
});
