// The tab says how many calls wait ("(2) Countersign"), so a person in another tab sees it.
import { useEffect } from 'react';
import { useApp } from '../store/context';

export const APP_TITLE = 'Countersign';

export function tabTitle(waiting: number): string {
  return waiting > 0 ? `(${waiting > 9999 ? '9999+' : waiting}) ${APP_TITLE}` : APP_TITLE;
}

export function useTabTitle(): void {
  const waiting = useApp((s) => s.pending.length);
  useEffect(() => {
    document.title = tabTitle(waiting);
  }, [waiting]);
}
