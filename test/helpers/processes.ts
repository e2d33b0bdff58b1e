// Looking at processes from a test: is one alive, and waiting for some to be gone.
import { readdirSync, readFileSync } from 'node:fs';
import { PATIENCE_MS } from './patience.js';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True once none of `pids` is alive; false if some still are after `ms`. */
export async function allGone(pids: number[], ms = PATIENCE_MS): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && pids.some(alive)) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(alive);
}

/** Host PIDs of the processes whose command line holds `tag` (Linux /proc). */
export function pidsTagged(tag: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').includes(tag)) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

export function parentOf(pid: number): number {
  // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its last ')'.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/**
 * The host PIDs of the fixture's `pids` answer. Inside a PID namespace the numbers it reports are the
 * namespace's own; its grandchild carries a tag in its argv, and the server is that grandchild's parent.
 */
export function hostTree(reply: { tag: string }): { server: number; grandchild: number } {
  const [grandchild] = pidsTagged(reply.tag);
  if (grandchild === undefined) throw new Error(`no process tagged ${reply.tag}`);
  return { server: parentOf(grandchild), grandchild };
}
