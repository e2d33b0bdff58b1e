// Renders only the rows in view (plus a few), so a queue of thousands stays quick. Rows have one
// fixed height; the list scrolls itself and positions rows with transforms.
import { forwardRef, useCallback, useEffect, useImperativeHandle, useRef, useState, type ReactNode } from 'react';

export interface VirtualListHandle {
  scrollToIndex(index: number): void;
  element(): HTMLDivElement | null;
}

interface Props {
  count: number;
  rowHeight: number;
  renderRow(index: number): ReactNode;
  getKey(index: number): string;
  overscan?: number;
  className?: string;
  role?: string;
  label?: string;
}

const FALLBACK_HEIGHT = 800;

export const VirtualList = forwardRef<VirtualListHandle, Props>(function VirtualList(
  { count, rowHeight, renderRow, getKey, overscan = 4, className, role, label },
  ref,
) {
  const outer = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(FALLBACK_HEIGHT);

  useEffect(() => {
    const el = outer.current;
    if (!el) return;
    // ResizeObserver reports after layout; reading clientHeight here would force a layout on mount.
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => setHeight(entries[0]?.contentRect.height || FALLBACK_HEIGHT));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const scrollToIndex = useCallback(
    (index: number) => {
      const el = outer.current;
      if (!el) return;
      const top = index * rowHeight;
      const view = el.clientHeight || FALLBACK_HEIGHT;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + rowHeight > el.scrollTop + view) el.scrollTop = top + rowHeight - view;
      setScrollTop(el.scrollTop);
    },
    [rowHeight],
  );

  useImperativeHandle(ref, () => ({ scrollToIndex, element: () => outer.current }), [scrollToIndex]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={getKey(i)} className="vrow" style={{ transform: `translateY(${i * rowHeight}px)`, height: rowHeight }}>
        {renderRow(i)}
      </div>,
    );
  }
  return (
    <div ref={outer} className={`vlist ${className ?? ''}`} onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)} role={role} aria-label={label}>
      <div className="vlist-inner" style={{ height: count * rowHeight }}>
        {rows}
      </div>
    </div>
  );
});
