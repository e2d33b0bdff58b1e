// A folder the managed-policy ownership rule accepts (root-owned 0755, every parent too: /var/lib, never
// /tmp, which every user may write), for tests that need a managed policy to count. Removed by `remove`.
import { chmodSync, chownSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export const NOBODY = 65534;
export const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'];

export interface ManagedFolder {
  dir: string;
  /** `managed-policy.json` in the folder (written by `writePolicy`). */
  file: string;
  /** Writes `file` whole (a rename, as a deployment tool would): root 0644. */
  writePolicy(policy: unknown): void;
  /** Writes a file (mode and owner as given: root 0644 by default). */
  write(name: string, content: unknown, o?: { mode?: number; uid?: number }): string;
  /** A sub-folder (root 0755 by default). */
  folder(name: string, o?: { mode?: number; uid?: number }): string;
  remove(): void;
}

export function managedFolder(): ManagedFolder {
  const dir = join('/var/lib', `countersign-test-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const own = (p: string, mode: number, uid: number): string => {
    chownSync(p, uid, uid);
    chmodSync(p, mode);
    return p;
  };
  const file = join(dir, 'managed-policy.json');
  return {
    dir,
    file,
    writePolicy(policy) {
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, JSON.stringify(policy, null, 2), { mode: 0o644 });
      renameSync(tmp, file);
    },
    write(name, content, o = {}) {
      const p = join(dir, name);
      writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return own(p, o.mode ?? 0o644, o.uid ?? 0);
    },
    folder(name, o = {}) {
      const p = join(dir, name);
      mkdirSync(p, { recursive: true });
      return own(p, o.mode ?? 0o755, o.uid ?? 0);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
