// Whether the process that wrote something (a lock, a temp file) still runs: its pid is alive AND it
// started before the thing was written. A pid alone is not an identity: after a crash or a reboot it
// may name an unrelated process.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

// The start time is known to about a second (/proc's boot time is whole seconds): leave a margin.
const START_SLACK_MS = 2000;

/** `pid` is alive and could have written something at `writtenMs` (NaN: unknown, trust the pid). */
export function stillRuns(pid: number, writtenMs: number): boolean {
  if (!isAlive(pid)) return false;
  const started = processStartMs(pid);
  return started === undefined || Number.isNaN(writtenMs) || started <= writtenMs + START_SLACK_MS;
}

/** When a process started (ms since the epoch), or undefined when this system does not say. */
export function processStartMs(pid: number): number | undefined {
  try {
    if (process.platform === 'linux') {
      // Field 22 of /proc/<pid>/stat is the start in clock ticks after boot; the command (field 2) may hold spaces.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
      const btime = Number(/^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'))?.[1]);
      // USER_HZ is 100 on every Linux architecture Node runs on.
      return Number.isFinite(ticks) && Number.isFinite(btime) ? btime * 1000 + ticks * 10 : undefined;
    }
    if (process.platform === 'win32') return undefined;
    const text = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 }).trim();
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? undefined : ms;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
