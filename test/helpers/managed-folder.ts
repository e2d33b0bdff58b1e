// A managed policy where the ownership rule accepts it: a root-owned 0755 folder under /var/lib (not
// /tmp, which anyone may write), removed by `remove()` in the test's `finally`.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ManagedFolder {
  /** The managed policy file (written by `write`). */
  file: string;
  write(policy: unknown): void;
  remove(): void;
}

export function managedFolder(): ManagedFolder {
  const dir = path.join('/var/lib', `countersign-test-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const file = path.join(dir, 'managed-policy.json');
  return {
    file,
    write(policy) {
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, JSON.stringify(policy, null, 2), { mode: 0o644 });
      renameSync(tmp, file);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
