// One line naming the machine a bench ran on, and how busy it was: numbers from a loaded machine are
// only good for their ratios.
import { cpus, loadavg, totalmem } from 'node:os';

export function machine(): string {
  const c = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return (
    `machine: ${c[0]?.model.trim() ?? 'unknown CPU'} × ${c.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, ` +
    `${process.platform} ${process.arch}, node ${process.version}; load average ${load}`
  );
}
