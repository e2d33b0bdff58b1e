// How long a test waits for an event before calling it a failure. A wait ends as soon as its event
// comes, so this costs nothing when things work; it is long because a loaded 2-core machine is slow,
// and a test must fail for a missing event, never for a busy machine.
export const PATIENCE_MS = 60_000;
