// Long work that runs on the event loop (a scan of a large argument, an audit query) gives it back in
// slices, so that calls and the UI are not held up behind it.
import { monotonicMs } from './clock.js';

/**
 * A pause for long work: once `sliceMs` have passed since the last yield, a promise that resolves on
 * the next turn of the event loop (setImmediate, after pending I/O); before that, undefined at once, so
 * a hot loop can call it often for almost nothing.
 */
export function yielder(sliceMs: number): () => Promise<void> | undefined {
  let last = monotonicMs();
  return () => {
    if (monotonicMs() - last < sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        last = monotonicMs();
        resolve();
      }),
    );
  };
}
