// The queue is kept oldest first. Calls mostly arrive in order, so insertion is a binary search and a splice.
import type { PendingCall } from '../../../shared/api';

export function insertPending(list: readonly PendingCall[], call: PendingCall): PendingCall[] {
  if (list.some((c) => c.id === call.id)) return list as PendingCall[];
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    // Ties keep arrival order: a new call goes after every call created at the same time.
    if (list[mid]!.createdAt <= call.createdAt) lo = mid + 1;
    else hi = mid;
  }
  const next = list.slice();
  next.splice(lo, 0, call);
  return next;
}

export function sortPending(list: readonly PendingCall[]): PendingCall[] {
  return list
    .map((c, i) => [c, i] as const)
    .sort((a, b) => a[0].createdAt - b[0].createdAt || a[1] - b[1])
    .map(([c]) => c);
}

/** Who should be selected once `id` leaves: the call after it, else the one before, else nobody. */
export function neighbourAfterRemoval(list: readonly PendingCall[], id: string): string | undefined {
  const i = list.findIndex((c) => c.id === id);
  if (i === -1) return undefined;
  return (list[i + 1] ?? list[i - 1])?.id;
}
