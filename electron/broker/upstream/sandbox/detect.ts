// Is there a sandbox here that really works? Asked once per process by running a tiny probe with the
// very flags the servers will get (bwrap-args.ts); never assumed from the platform or a binary being
// present. What is missing comes with the fix (probe-fix.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SandboxSupport } from '../../../../shared/limits.js';
import { bwrapArgs } from './bwrap-args.js';
import { INSTALL_BUBBLEWRAP, namespaceFix, NO_DISABLE_USERNS, oldBubblewrap } from './probe-fix.js';

export type { SandboxSupport };

export interface DetectOptions {
  platform?: NodeJS.Platform;
  /** Where to look for bubblewrap. Fixed system paths only: a `bwrap` earlier on PATH could be anyone's. */
  bwrapPaths?: string[];
  sandboxExecPath?: string;
}

const BWRAP_PATHS = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap', '/run/current-system/sw/bin/bwrap'];
const TRUE_PATHS = ['/usr/bin/true', '/bin/true'];
const PROBE_TIMEOUT_MS = 5000;

function run(file: string, args: string[]): Promise<{ ok: boolean; why: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } }, (err, _stdout, stderr) => {
      const why = String(stderr).trim().split('\n')[0] || (err ? err.message : '');
      resolve({ ok: !err, why });
    });
  });
}

/** A limited server's flags, on a small mount table: system read-only, private /tmp, a masked folder. */
function probeArgs(noNetwork: boolean, blockNestedUserns: boolean, truth: string): string[] {
  const mounts = [
    { kind: 'ro' as const, src: '/', dest: '/' },
    { kind: 'tmpfs' as const, dest: '/tmp' },
  ];
  const masks = [{ kind: 'mask-dir' as const, dest: '/tmp/countersign-probe' }];
  return [...bwrapArgs({ noNetwork, blockNestedUserns, mounts, masks }), '--', truth];
}

async function detectBwrap(paths: string[]): Promise<SandboxSupport> {
  const path = paths.find((p) => existsSync(p));
  if (!path) return { kind: 'none', reason: `bubblewrap is not installed (looked for ${paths.join(', ')})`, fix: INSTALL_BUBBLEWRAP };
  const truth = TRUE_PATHS.find((p) => existsSync(p)) ?? 'true';
  let blocked = true;
  let base = await run(path, probeArgs(false, true, truth));
  // bubblewrap before 0.8 has no --disable-userns: it still sandboxes, and the enforcement says what it lacks.
  if (!base.ok && NO_DISABLE_USERNS.test(base.why)) {
    blocked = false;
    base = await run(path, probeArgs(false, false, truth));
  }
  if (!base.ok) return { kind: 'none', reason: `bubblewrap cannot make a sandbox here (${base.why || 'it failed'})`, fix: namespaceFix(base.why) };
  const net = await run(path, probeArgs(true, blocked, truth));
  const nestedUserns = blocked ? ('blocked' as const) : { open: oldBubblewrap.caveat };
  const fixes = [...(net.ok ? [] : [namespaceFix(net.why, 'network')]), ...(blocked ? [] : [oldBubblewrap.fix])];
  return {
    kind: 'bubblewrap',
    path,
    network: net.ok,
    nestedUserns,
    ...(net.ok ? {} : { networkReason: `no network namespace here (${net.why || 'it failed'})` }),
    ...(fixes.length ? { fix: fixes.join('; ') } : {}),
  };
}

async function detectSandboxExec(path: string): Promise<SandboxSupport> {
  if (!existsSync(path))
    return {
      kind: 'none',
      reason: `sandbox-exec is missing (${path})`,
      fix: 'sandbox-exec ships with macOS in /usr/bin: restore it (it is part of the system)',
    };
  const probe = await run(path, ['-p', '(version 1)(allow default)', '/usr/bin/true']);
  return probe.ok
    ? { kind: 'sandbox-exec', path }
    : { kind: 'none', reason: `sandbox-exec does not work here (${probe.why})`, fix: 'run Countersign outside another sandbox (sandbox-exec cannot nest)' };
}

export function detectSandbox(opts: DetectOptions = {}): Promise<SandboxSupport> {
  const platform = opts.platform ?? process.platform;
  if (platform === 'linux') return detectBwrap(opts.bwrapPaths ?? BWRAP_PATHS);
  if (platform === 'darwin') return detectSandboxExec(opts.sandboxExecPath ?? '/usr/bin/sandbox-exec');
  return Promise.resolve({
    kind: 'none',
    reason: `no sandbox is available on ${platform}`,
    fix: 'none on this system: run the server without limits only if you trust it (Servers → Limits)',
  });
}

let cached: Promise<SandboxSupport> | undefined;

/** This process's answer, probed on first use and kept. */
export function sandboxSupport(): Promise<SandboxSupport> {
  cached ??= detectSandbox();
  return cached;
}
