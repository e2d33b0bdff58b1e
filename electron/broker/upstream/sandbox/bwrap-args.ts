// bubblewrap's command line for a server. Every server gets its own user namespace with no capability
// (whoever runs Countersign, root included), its own PID, IPC, UTS and cgroup namespaces, a read-only
// /proc, and no way to make further user namespaces (bubblewrap 0.8+). A server with no file limits
// sees the host as it is, but for Countersign's own files, which are masked (hidden-paths.ts).
import { depth, type Mount } from './mounts.js';

/** The namespaces and the privileges every Linux server gets; the probe (detect.ts) runs with these too. */
export const BWRAP_ISOLATION = [
  '--unshare-user',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--die-with-parent',
  '--new-session',
  '--cap-drop',
  'ALL',
];
/** bubblewrap 0.8+: the server cannot make a user namespace of its own (where it would have capabilities). */
export const NO_NESTED_USERNS = '--disable-userns';

export interface BwrapPlan {
  /** Unshare the network: only loopback inside, nothing of the host's. */
  noNetwork: boolean;
  /** False where this bubblewrap has no `--disable-userns` (older than 0.8): said in the enforcement. */
  blockNestedUserns: boolean;
  /** 'host': the file system as it is; otherwise these mounts only (mounts.ts). */
  mounts: 'host' | Mount[];
  /** Countersign's own files, masked over whatever the mounts show (hidden-paths.ts). */
  masks?: Mount[];
  chdir?: string;
}

function mountFlags(m: Mount): string[] {
  switch (m.kind) {
    case 'ro':
      return ['--ro-bind', m.src, m.dest];
    case 'rw':
      return ['--bind', m.src, m.dest];
    case 'tmpfs':
    case 'mask-dir':
      return ['--tmpfs', m.dest];
    case 'mask-file':
      // A device node on a nodev mount: opening it fails (EACCES); writing, renaming or removing too.
      return ['--ro-bind', '/dev/null', m.dest];
    case 'symlink':
      return ['--symlink', m.target, m.dest];
  }
}

/** The flags before `--`; the caller appends `--`, the command and its arguments. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [...BWRAP_ISOLATION];
  if (plan.blockNestedUserns) args.push(NO_NESTED_USERNS);
  if (plan.noNetwork) args.push('--unshare-net');
  const mounts = plan.mounts === 'host' ? [] : plan.mounts;
  const all = [...mounts, ...(plan.masks ?? [])].sort((a, b) => depth(a.dest) - depth(b.dest));
  if (plan.mounts === 'host') {
    // Bound as it is (recursively, devices too); only /proc is new, to match the new PID namespace.
    args.push('--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc');
  } else {
    args.push('--proc', '/proc', '--dev', '/dev');
  }
  for (const m of all) args.push(...mountFlags(m));
  // Read-only last: a masked folder may hold a mount point made after it (a package Countersign lends).
  for (const m of all) if (m.kind === 'mask-dir') args.push('--remount-ro', m.dest);
  // Nothing under /proc/sys, /proc/sysrq-trigger… is the server's to write, whatever its uid maps to.
  args.push('--remount-ro', '/proc');
  if (plan.chdir) args.push('--chdir', plan.chdir);
  return args;
}
