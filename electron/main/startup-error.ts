// What the person reads when the broker cannot start, most often because `countersign serve` (or
// another copy of the app) already runs on the same data dir.
import { explainDiskError } from '../broker/explain/disk-error.js';
import { InstanceLockError } from '../broker/store/instance-lock.js';

export function startupErrorMessage(error: unknown, dataDir: string): { title: string; body: string } {
  if (error instanceof InstanceLockError) {
    return {
      title: 'Countersign is already running',
      body:
        `Another Countersign broker (pid ${error.pid}) is using ${dataDir}, for example \`countersign serve\`.\n\n` +
        'Stop it and open Countersign again, or use that one in your browser.',
    };
  }
  // A refused write (read-only, full disk) names the path and the fix; a port in use, who holds it.
  const text = explainDiskError(error, dataDir)?.message ?? (error instanceof Error ? error.message : String(error));
  return { title: 'Countersign could not start', body: `${text}\n\nData folder: ${dataDir}` };
}
