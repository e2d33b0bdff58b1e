// The errors a person can meet and act on, as the sentence the CLI prints (with the fix where there is
// one); undefined for anything unexpected (run.ts then writes its stack to a log file).
import { escapeControl } from '../../shared/escape.js';

export async function explainCliError(err: unknown, dataDir: string): Promise<string | undefined> {
  const [
    { SettingsError },
    { InstanceLockError },
    { CoreRefusal },
    { PortInUseError, PortDeniedError },
    { DiskError, explainDiskError },
    { LaunchRefused },
    { ConsentRefused },
  ] = await Promise.all([
    import('../broker/store/settings-store.js'),
    import('../broker/store/instance-lock.js'),
    import('./core-client.js'),
    import('../broker/explain/port-in-use.js'),
    import('../broker/explain/disk-error.js'),
    import('../broker/upstream/sandbox/launch-plan.js'),
    import('./confirm.js'),
  ]);
  const expected = [SettingsError, InstanceLockError, CoreRefusal, PortInUseError, PortDeniedError, DiskError, LaunchRefused, ConsentRefused];
  if (expected.some((kind) => err instanceof kind)) return escapeControl((err as Error).message);
  const disk = explainDiskError(err, dataDir);
  return disk ? escapeControl(disk.message) : undefined;
}
