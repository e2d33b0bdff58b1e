// The processes a process started, and theirs (Linux, from /proc): a relay's server, the broker's servers
// (under bwrap). Empty elsewhere.
import { readdirSync, readFileSync } from 'node:fs';

export function descendants(pid: number | undefined): number[] {
  if (pid === undefined || process.platform !== 'linux') return [];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The name (field 2) may hold spaces and parentheses: fields after its last ')' are plain.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // ended meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}
