// How long a test waits for an event before calling it a failure. A wait ends as soon as its event
// comes, so this costs nothing when things work; it is long because a loaded 2-core machine is slow,
// and a test must fail for a missing event, never for a busy machine.
export const PATIENCE_MS = 60_000;

/** How often a poll looks again: a state with no event to wait on (a re-read file, another process's log entry). */
const POLL_MS = 10;

/** Looks at `get` until `ok` holds, for at most `timeoutMs`; the one poll loop of the tests. */
export async function pollUntil<T>(get: () => T | Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = PATIENCE_MS): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
