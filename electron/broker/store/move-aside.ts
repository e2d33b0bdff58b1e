// A file that cannot be read is moved aside, never deleted: renamed beside itself with a timestamp,
// `<file>.corrupt-<UTC time>[-n]`, so the person can look at it (or restore it) later.
import fs from 'node:fs';

/** Moves an unreadable file aside and returns where it went; undefined when it was already gone. */
export function moveAside(file: string): string | undefined {
  const stamp = new Date().toISOString().replace(/:/g, '');
  let target = `${file}.corrupt-${stamp}`;
  // Never over an earlier one.
  for (let n = 1; fs.existsSync(target); n++) target = `${file}.corrupt-${stamp}-${n}`;
  try {
    fs.renameSync(file, target);
    return target;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
