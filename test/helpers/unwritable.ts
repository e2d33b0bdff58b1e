// A folder that truly cannot be written to, for failed-write tests. chmod does not stop root, so as
// root the folder is made immutable (chattr +i); otherwise its write bit is removed. If neither works
// the test fails: a failed write must be tested, never skipped.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function makeUnwritable(dir: string): () => void {
  const root = process.getuid?.() === 0;
  let undo: () => void;
  if (root) {
    execFileSync('chattr', ['+i', dir]);
    undo = () => execFileSync('chattr', ['-i', dir]);
  } else {
    chmodSync(dir, 0o555);
    undo = () => chmodSync(dir, 0o755);
  }
  const probe = join(dir, '.write-probe');
  try {
    writeFileSync(probe, 'x');
  } catch {
    return undo;
  }
  rmSync(probe, { force: true });
  undo();
  throw new Error(`could not make ${dir} unwritable (${root ? 'chattr +i' : 'chmod 0555'} had no effect)`);
}
