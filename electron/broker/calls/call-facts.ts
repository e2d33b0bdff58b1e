// What Countersign can find out around a call that waits for a person: the files it names (exist?
// how big?) and what the same agent read before. Only facts go here; shared/call-warnings words them.
import { lstat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { callTargets, shortPath, type TargetFact } from '../../../shared/call-targets.js';
import type { CallFacts } from '../../../shared/call-facts.js';

/** Local reads remembered per agent, for "after reading notes.md". */
const MAX_READS = 20;
const MAX_TARGETS = 20;
const STAT_TIMEOUT_MS = 500;

export interface ReadHistory {
  reads?: string[];
}

/** Remembers what a local read named (its files, or the tool), most recent last. */
export function rememberRead(history: ReadHistory, server: string, tool: string, args: unknown): void {
  const named = callTargets(tool, args).map((t) => shortPath(t.path));
  const labels = named.length ? named : [`${tool} on ${server}`];
  const reads = (history.reads ??= []);
  for (const label of labels) {
    const at = reads.indexOf(label);
    if (at !== -1) reads.splice(at, 1);
    reads.push(label);
  }
  if (reads.length > MAX_READS) reads.splice(0, reads.length - MAX_READS);
}

async function statTarget(path: string): Promise<Pick<TargetFact, 'exists' | 'bytes' | 'unknown'>> {
  if (!isAbsolute(path)) return { unknown: 'The path is relative: the server decides which file it means.' };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('looking at the file took too long')), STAT_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const st = await Promise.race([lstat(path), timeout]);
    return { exists: true, bytes: st.isFile() ? st.size : undefined };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    return { unknown: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** The facts for a call that waits for a person (stat only: no file is read). */
export async function gatherFacts(tool: string, args: unknown, history: ReadHistory): Promise<CallFacts> {
  const targets = callTargets(tool, args)
    .filter((t) => t.role !== 'read')
    .slice(0, MAX_TARGETS);
  const facts = await Promise.all(targets.map(async (t) => ({ ...t, ...(await statTarget(t.path)) })));
  return { localReads: history.reads?.length ? [...history.reads] : undefined, targets: facts.length ? facts : undefined };
}
