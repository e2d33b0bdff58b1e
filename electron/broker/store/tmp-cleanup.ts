// Temp files that a killed write left behind (atomic-file.ts names them <file>.<pid>.<8 hex>.tmp):
// removed at start when their writer is gone. A live writer's file is left alone.
import fs from 'node:fs';
import path from 'node:path';
import { stillRuns } from './process-identity.js';

const LEFTOVER = /^.+\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Removes the leftovers in `dir`; returns their names. Never throws (a read-only folder keeps them). */
export function cleanTmpLeftovers(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = LEFTOVER.exec(name);
    if (!m) continue;
    const file = path.join(dir, name);
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile() || stillRuns(Number(m[1]), st.mtimeMs)) continue;
      fs.rmSync(file);
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove: leave it.
    }
  }
  return removed;
}
