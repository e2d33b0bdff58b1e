// The one clock for durations, deadlines and "checked less than N ms ago": performance.now(), which a
// change of the system time does not move. Date.now() is only for wall-clock times that are stored or
// shown (an entry's `time`, an expiry) or compared with such times (file ctimes, a stored expiry).
// Read at each call, never bound at load: tests' fake timers replace performance.now.

/** Now on the duration clock, in ms. Meaningful only against another reading of it, in this process. */
export function monotonicMs(): number {
  return performance.now();
}

/** Whole milliseconds since `start` (a monotonicMs() reading): the duration a log entry or report records. */
export function elapsedMs(start: number): number {
  return Math.round(performance.now() - start);
}
