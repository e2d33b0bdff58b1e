// Where no PID namespace is to be had, the best the OS offers for ending a server's whole tree: before
// the kill, gather every descendant (by parent links, so a child that left the process group with
// setsid is still found) and, on Linux, every process that still carries the server's tree marker in
// its environment (a double-forked daemon, reparented to init, keeps it unless it scrubs it).
// Not reachable from Node: PR_SET_CHILD_SUBREAPER. Nothing here survives the broker being killed -9.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { monotonicMs } from '../../core/clock.js';

/** The environment variable that marks an unsandboxed server's tree. */
export const TREE_MARKER = 'COUNTERSIGN_TREE';

interface Proc {
  pid: number;
  ppid: number;
}

async function linuxProcs(): Promise<Proc[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const procs = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        const stat = await readFile(`/proc/${n}/stat`, 'utf8').catch(() => '');
        // "pid (comm) state ppid …": comm may hold spaces and parentheses; read after the last ')'.
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return { pid: Number(n), ppid };
      }),
  );
  return procs.filter((p) => Number.isFinite(p.ppid));
}

function psProcs(): Promise<Proc[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], { timeout: 5000 }, (err, stdout) => {
      if (err) return resolve([]);
      resolve(
        String(stdout)
          .trim()
          .split('\n')
          .map((l) => l.trim().split(/\s+/).map(Number))
          .map(([pid, ppid]) => ({ pid: pid!, ppid: ppid! })),
      );
    });
  });
}

/** Every live descendant of `root`, found through parent links. */
export function descendantsOf(root: number, procs: Proc[]): number[] {
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const c of children.get(queue.shift()!) ?? []) {
      if (found.includes(c) || c === root) continue;
      found.push(c);
      queue.push(c);
    }
  }
  return found;
}

async function markedProcs(marker: string): Promise<number[]> {
  const names = await readdir('/proc').catch(() => [] as string[]);
  const needle = `\0${TREE_MARKER}=${marker}\0`;
  const hits = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
      .map(async (n) => {
        const env = await readFile(`/proc/${n}/environ`, 'latin1').catch(() => '');
        return `\0${env}`.includes(needle) ? Number(n) : undefined;
      }),
  );
  return hits.filter((p): p is number => p !== undefined);
}

/** The processes to end along with `root`: its descendants, and on Linux those wearing `marker`. */
export async function treeOf(root: number, marker?: string, platform: NodeJS.Platform = process.platform): Promise<number[]> {
  if (platform === 'win32') return [];
  const procs = platform === 'linux' ? await linuxProcs() : await psProcs();
  const pids = new Set(descendantsOf(root, procs));
  if (platform === 'linux' && marker) for (const p of await markedProcs(marker)) pids.add(p);
  pids.delete(root);
  return [...pids];
}

export function killAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** How long what a server left behind may take to leave on SIGTERM before SIGKILL. */
const LEFTOVER_GRACE_MS = 1000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends the process group and `tree()` (the swept descendants): SIGTERM, a moment to go, then SIGKILL. */
export async function endTree(killGroup: (signal: NodeJS.Signals) => void, tree: () => Promise<number[]>): Promise<void> {
  killGroup('SIGTERM');
  const left = await tree();
  killAll(left, 'SIGTERM');
  const end = monotonicMs() + LEFTOVER_GRACE_MS;
  // A held timer: a broker on its way out must stay for the SIGKILL pass (at most LEFTOVER_GRACE_MS).
  while (monotonicMs() < end && left.some(alive)) await new Promise((r) => setTimeout(r, 50));
  killGroup('SIGKILL');
  killAll([...new Set([...left, ...(await tree())])], 'SIGKILL');
}
