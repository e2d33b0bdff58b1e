// Runs an async refresh at most once at a time; calls that arrive meanwhile collapse into one more run,
// so a burst of "servers-changed" events costs two fetches, not fifty.
export function coalesce(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await fn();
        } while (again);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  return run;
}
