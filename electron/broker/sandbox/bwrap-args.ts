// bubblewrap's command line for a server. Every server gets its own PID namespace that dies with it
// and with its parent (the broker); a server with no other limits sees the host as it is.
import { BWRAP_BASE } from './detect.js';
import type { Mount } from './mounts.js';

export interface BwrapPlan {
  /** Unshare the network: only loopback inside, nothing of the host's. */
  noNetwork: boolean;
  /** 'host': the file system as it is; otherwise these mounts only (mounts.ts). */
  mounts: 'host' | Mount[];
  chdir?: string;
}

function mountFlags(m: Mount): string[] {
  switch (m.kind) {
    case 'ro':
      return ['--ro-bind', m.src, m.dest];
    case 'rw':
      return ['--bind', m.src, m.dest];
    case 'tmpfs':
      return ['--tmpfs', m.dest];
    case 'symlink':
      return ['--symlink', m.target, m.dest];
  }
}

/** The flags before `--`; the caller appends `--`, the command and its arguments. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [...BWRAP_BASE];
  if (plan.noNetwork) args.push('--unshare-net');
  if (plan.mounts === 'host') {
    // Bound as it is (recursively, devices too); only /proc is new, to match the new PID namespace.
    args.push('--bind', '/', '/', '--dev-bind', '/dev', '/dev', '--proc', '/proc');
  } else {
    args.push('--proc', '/proc', '--dev', '/dev');
    for (const m of plan.mounts) args.push(...mountFlags(m));
  }
  if (plan.chdir) args.push('--chdir', plan.chdir);
  return args;
}
