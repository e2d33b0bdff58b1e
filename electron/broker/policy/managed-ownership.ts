// Whether a managed policy file may count, checked as ssh's StrictModes checks authorized_keys: the file
// and every folder above it owned by root (uid 0) and writable by no group, no other and not by the user
// who runs Countersign. A symlink anywhere on the way must be root's too, and its target is checked the
// same way. Anything the guarded agent (running as the user) could have written or swapped is ignored.
// On Windows, icacls is read for each component: only Administrators, SYSTEM, TrustedInstaller and
// CREATOR OWNER may hold write rights.
import fs from 'node:fs';
import path from 'node:path';

export type Ownership = { ok: true } | { ok: false; why: string; fix: string };

export interface OwnershipDeps {
  /** The uid Countersign runs as (process.getuid). */
  uid: number;
  lstat(p: string): fs.Stats;
  realpath(p: string): string;
  /** Whether the running user may write it (access W_OK): catches ACLs the mode bits do not show. */
  writable(p: string): boolean;
}

export const realDeps = (): OwnershipDeps => ({
  uid: process.getuid?.() ?? -1,
  lstat: (p) => fs.lstatSync(p),
  realpath: (p) => fs.realpathSync(p),
  writable: (p) => {
    try {
      fs.accessSync(p, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  },
});

const fixFor = (p: string, dir: boolean): string => `sudo chown root:root '${p}' && sudo chmod ${dir ? '755' : '644'} '${p}'`;

/** POSIX: the file, every folder above it, and the target of any symlink on the way. */
export function checkOwnership(file: string, deps: OwnershipDeps = realDeps()): Ownership {
  if (!path.isAbsolute(file)) {
    return {
      ok: false,
      why: `the path '${file}' is not absolute, so where it points depends on the folder Countersign starts in`,
      fix: 'name the managed policy by its absolute path',
    };
  }
  // The kernel resolves `..` after a symlink from the link's target, not from the path as written: a
  // path with `.` or `..` is not checked component by component as it would be read, so it is refused.
  if (file.split('/').some((c) => c === '.' || c === '..')) {
    return { ok: false, why: `the path '${file}' has '.' or '..' in it`, fix: 'name the managed policy by its plain absolute path' };
  }
  return walk(path.normalize(file), deps, 0);
}

function walk(file: string, deps: OwnershipDeps, depth: number): Ownership {
  if (depth > 16) return { ok: false, why: `too many symlinks on the way to '${file}'`, fix: 'point the path at the file itself' };
  const parts = file.split(path.sep).filter(Boolean);
  // From the root down, as ssh's secure_path walks up: every component the path passes through.
  for (let i = 0; i <= parts.length; i++) {
    const here = path.sep + parts.slice(0, i).join(path.sep);
    const last = i === parts.length;
    let st: fs.Stats;
    try {
      st = deps.lstat(here);
    } catch (err) {
      return {
        ok: false,
        why: `'${here}' cannot be examined (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        fix: `make '${here}' readable by the user who runs Countersign`,
      };
    }
    if (st.uid !== 0) {
      return {
        ok: false,
        why: `'${here}' is owned by uid ${st.uid}, not root, so that user (perhaps the one an agent runs as) could change what it holds`,
        fix: fixFor(here, !last || st.isDirectory()),
      };
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = deps.realpath(here);
      } catch (err) {
        return {
          ok: false,
          why: `the symlink '${here}' cannot be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
          fix: `point '${here}' at a root-owned file, or name the real path`,
        };
      }
      const inner = walk(target, deps, depth + 1);
      if (!inner.ok) return { ok: false, why: `'${here}' is a symlink to '${target}': ${inner.why}`, fix: inner.fix };
      continue;
    }
    // Sticky or not (/tmp): a folder others may write lets them put or rename entries beside the file.
    if (st.mode & 0o022) {
      const who = st.mode & 0o002 ? 'every user' : 'its group';
      const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
      // A shared folder such as /tmp stays as it is: the file moves.
      const fix =
        st.mode & 0o1000
          ? `move the file to a folder only root can write, e.g. sudo install -d -o root -g root -m 755 /etc/countersign && sudo install -o root -g root -m 644 <file> /etc/countersign/managed-policy.json`
          : fixFor(here, !last || st.isDirectory());
      return { ok: false, why: `'${here}' is writable by ${who} (mode ${mode})${st.mode & 0o1000 ? ', sticky or not' : ''}`, fix };
    }
    if (deps.uid !== 0 && deps.writable(here)) {
      return {
        ok: false,
        why: `'${here}' is writable by the user who runs Countersign (uid ${deps.uid}), through an ACL`,
        fix: `sudo setfacl -b '${here}' && ${fixFor(here, !last || st.isDirectory())}`,
      };
    }
  }
  return { ok: true };
}

/** Principals that may hold write rights on a managed file or a folder above it (Windows). */
const TRUSTED_WINDOWS = [/^BUILTIN\\Administrators$/i, /^NT AUTHORITY\\SYSTEM$/i, /^NT SERVICE\\TrustedInstaller$/i, /^CREATOR OWNER$/i];
// Rights that let a principal change the file or swap an entry: full, modify, write, write data/append,
// write attributes, delete, change permissions, take ownership.
const WRITE_RIGHTS = /\((?:[^)]*,)?(F|M|W|WD|AD|WA|WEA|D|DC|WDAC|WO|GA|GW)(?:,[^)]*)?\)/;

/**
 * Windows: runs `icacls` on the file and each folder above it, and refuses any ACE that gives write rights
 * to a principal other than Administrators, SYSTEM, TrustedInstaller or CREATOR OWNER. The owner itself
 * is not read (icacls does not print it); an owner outside those holds no write right unless an ACE
 * grants one, which is what is checked.
 */
export function checkWindowsOwnership(file: string, icacls: (p: string) => string): Ownership {
  if (!/^[A-Za-z]:\\/.test(file)) return { ok: false, why: `the path '${file}' is not absolute`, fix: 'name the managed policy by its absolute path (C:\\…)' };
  const parts = file.split('\\').filter(Boolean);
  for (let i = parts.length; i >= 2; i--) {
    const here = parts.slice(0, i).join('\\');
    let out: string;
    try {
      out = icacls(here);
    } catch (err) {
      return {
        ok: false,
        why: `the permissions of '${here}' cannot be read (${(err as Error).message})`,
        fix: `make '${here}' readable, or check it with: icacls "${here}"`,
      };
    }
    for (const raw of out.split(/\r?\n/)) {
      // The first line starts with the path itself; the ACEs follow as "PRINCIPAL:(flags)(rights)".
      const line = raw.startsWith(here) ? raw.slice(here.length) : raw;
      const m = /^\s*([^:]+?):((?:\([^)]*\))+)\s*$/.exec(line);
      if (!m) continue;
      const [, who, rights] = m as unknown as [string, string, string];
      if (/\(DENY\)/.test(rights) || !WRITE_RIGHTS.test(rights)) continue;
      if (TRUSTED_WINDOWS.some((r) => r.test(who.trim()))) continue;
      return {
        ok: false,
        why: `'${here}' gives ${who.trim()} write rights ${rights}`,
        fix: `icacls "${here}" /remove "${who.trim()}" && icacls "${here}" /inheritance:r /grant:r Administrators:F SYSTEM:F Users:RX`,
      };
    }
  }
  return { ok: true };
}
