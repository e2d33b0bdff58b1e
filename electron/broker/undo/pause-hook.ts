// A test hook for the crash ordering: with COUNTERSIGN_TEST_PAUSE_AFTER_SNAPSHOT=1 the broker says on
// stderr that a snapshot is on disk, then holds the call there (before it is forwarded) until killed.
// The test waits for that line (an event, never a sleep), then kill -9s the broker.
export function snapshotPauseHook(env: NodeJS.ProcessEnv): ((id: string) => Promise<void>) | undefined {
  if (env.COUNTERSIGN_TEST_PAUSE_AFTER_SNAPSHOT !== '1') return undefined;
  return (id) => {
    process.stderr.write(`countersign-test: snapshot ${id} kept, holding the call before it is forwarded\n`);
    return new Promise<void>(() => undefined);
  };
}
