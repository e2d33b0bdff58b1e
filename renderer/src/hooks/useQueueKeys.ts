// Queue shortcuts: j/k move, a approves, d denies, Enter opens the detail, Escape goes back to the list.
// Keys typed into a field, or with a modifier, are left alone; only Escape leaves a text field for the list.
import { useEffect, useRef } from 'react';

export interface QueueKeyHandlers {
  move(delta: number): void;
  approve(): void;
  deny(): void;
  open(): void;
  back(): void;
}

/** Focus is in a field that takes keys: nothing may take it away or act on its keys. */
export function isTyping(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

function isTextField(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('input:not([type=checkbox]):not([type=radio]), textarea') !== null;
}

export function useQueueKeys(handlers: QueueKeyHandlers): void {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (isTyping(e.target) && !(e.key === 'Escape' && isTextField(e.target))) return;
      const h = ref.current;
      const onControl = e.target instanceof Element && e.target.closest('button, a[href], summary') !== null;
      switch (e.key) {
        case 'j':
          h.move(1);
          break;
        case 'k':
          h.move(-1);
          break;
        case 'a':
          h.approve();
          break;
        case 'd':
          h.deny();
          break;
        case 'Enter':
          if (onControl) return; // Enter on a button presses that button
          h.open();
          break;
        case 'Escape':
          h.back();
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
