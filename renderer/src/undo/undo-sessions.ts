// The agents' sessions that changed files, from listUndoable: what a session revert can pick. An undo
// is not part of a session (reverting a session never undoes an undo), and what was undone is left out.
import type { UndoableCall } from '../../../shared/undo';

export interface UndoSession {
  session: string;
  client?: string;
  /** Its first and last undoable change (ISO). */
  first: string;
  last: string;
  calls: number;
}

export function undoSessions(calls: UndoableCall[]): UndoSession[] {
  const by = new Map<string, UndoSession>();
  for (const c of calls) {
    if (!c.session || c.undoOf || c.undoneBy) continue;
    const s = by.get(c.session);
    if (!s) by.set(c.session, { session: c.session, client: c.client, first: c.time, last: c.time, calls: 1 });
    else {
      s.calls++;
      if (c.time < s.first) s.first = c.time;
      if (c.time > s.last) s.last = c.time;
    }
  }
  return [...by.values()].sort((a, b) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0));
}

/** A `datetime-local` value (local time, minutes) as an ISO instant, or undefined when empty/invalid. */
export function sinceIso(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}
