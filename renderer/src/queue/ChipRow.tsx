// A call's headline lines as one row of chips (the queue card; the detail's header on short windows).
// A chip that does not fit whole is hidden and counted in "+N more", never cut off mid-word. Only a
// first chip wider than the row is squeezed, and then only its claim, worded "not checked: …" so the
// words that are cut are never the warning or the fact that it is unchecked.
import { useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { lineLabel } from '../../../shared/card-order';
import { sourceLabel } from '../../../shared/call-warnings';
import type { Warning } from '../lib/warnings';
import { SeverityIcon } from '../ui/Badges';

type Fit = 'whole' | 'squeezed' | 'hidden';

function WarningChip({ w, fit }: { w: Warning; fit: Fit }) {
  const tip = `${lineLabel(w)}: ${w.title}${w.claim ? `. ${w.claim.text}` : ''} (${sourceLabel(w)})`;
  return (
    <li className={`chip chip-${w.severity} chip-${w.source}${fit === 'whole' ? '' : ` chip-${fit}`}`} title={tip} aria-hidden={fit === 'hidden' || undefined}>
      <SeverityIcon severity={w.severity} size={12} />
      <span className="chip-text">{w.short}</span>
      {w.claim && <span className="chip-unchecked">{w.claim.short}</span>}
    </li>
  );
}

const GAP = 6; // .chip-row and .card-warnings gap, in px

/**
 * How many chips fit whole in the row, leaving room for "+N more" when some do not: measured from each
 * chip's own width (hidden ones stay measurable, out of the flow), again whenever the row resizes.
 */
function useFitCount(count: number, moreNotable: number, content: string): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [fit, setFit] = useState(count);
  useLayoutEffect(() => {
    const row = ref.current;
    if (!row) return;
    const measure = () => {
      // Not laid out (hidden, or no layout engine): keep what is shown until it is.
      if (row.clientWidth === 0) return;
      const items = Array.from(row.querySelectorAll<HTMLElement>('.card-warnings > .chip'));
      // A squeezed chip is as wide as the room it was given: measure it whole, or it would "fit" next time.
      const squeezed = items.filter((el) => el.classList.contains('chip-squeezed'));
      for (const el of squeezed) el.classList.remove('chip-squeezed');
      const moreWidth = row.querySelector<HTMLElement>('.chip-measure')?.getBoundingClientRect().width ?? 0;
      const avail = row.clientWidth;
      let used = 0;
      let k = 0;
      for (; k < items.length; k++) {
        const width = Math.max(items[k]!.getBoundingClientRect().width, items[k]!.scrollWidth);
        const next = used + (k ? GAP : 0) + width;
        const reserve = k + 1 < items.length || moreNotable > 0 ? GAP + moreWidth : 0;
        if (next + reserve > avail + 0.5) break;
        used = next;
      }
      for (const el of squeezed) el.classList.add('chip-squeezed');
      setFit(k);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(row);
    return () => observer.disconnect();
  }, [count, moreNotable, content]);
  return [ref, Math.min(fit, count)];
}

interface Props {
  headline: Warning[];
  /** Lines that could have stood here but did not (the rest of the list is one click away). */
  moreNotable: number;
  label: string;
  className?: string;
  /** "+2 more" or "+2 more below". */
  moreWord?: string;
  /** Shown when there is no headline line at all; without it, nothing is shown. */
  none?: string;
}

export function ChipRow({ headline, moreNotable, label, className = '', moreWord = 'more', none }: Props) {
  const [ref, fit] = useFitCount(headline.length, moreNotable, headline.map((w) => w.key).join('\n'));
  if (headline.length === 0 && !none) return null;
  const shown = Math.max(fit, Math.min(1, headline.length));
  const more = moreNotable + headline.length - shown;
  return (
    <div className={`chip-row ${className}`} ref={ref}>
      <ul className="card-warnings" aria-label={label}>
        {headline.length === 0 && <li className="chip chip-none">{none}</li>}
        {headline.map((w, i) => (
          <WarningChip key={w.key} w={w} fit={i < fit ? 'whole' : i === 0 ? 'squeezed' : 'hidden'} />
        ))}
      </ul>
      {more > 0 && (
        <span className="chip chip-more">
          +{more} {moreWord}
        </span>
      )}
      <span className="chip chip-more chip-measure" aria-hidden="true">
        +{moreNotable + headline.length} {moreWord}
      </span>
    </div>
  );
}
