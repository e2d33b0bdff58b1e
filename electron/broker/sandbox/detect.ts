// Is there a sandbox here that really works? Asked once per process by running a tiny probe with the
// very namespaces the servers will get; never assumed from the platform or a binary being present.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SandboxSupport } from '../../../shared/limits.js';

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

/** The flags every Linux server gets; the probe proves they work before any server relies on them. */
export const BWRAP_BASE = ['--unshare-pid', '--die-with-parent', '--new-session'];

function run(file: string, args: string[]): Promise<{ ok: boolean; why: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } }, (err, _stdout, stderr) => {
      const why = String(stderr).trim().split('\n')[0] || (err ? err.message : '');
      resolve({ ok: !err, why });
    });
  });
}

async function detectBwrap(paths: string[]): Promise<SandboxSupport> {
  const path = paths.find((p) => existsSync(p));
  if (!path) return { kind: 'none', reason: `bubblewrap is not installed (looked for ${paths.join(', ')})` };
  const truth = TRUE_PATHS.find((p) => existsSync(p)) ?? 'true';
  const probe = [...BWRAP_BASE, '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp'];
  const [pid, net] = await Promise.all([run(path, [...probe, '--', truth]), run(path, [...probe, '--unshare-net', '--', truth])]);
  if (!pid.ok) return { kind: 'none', reason: `bubblewrap cannot make a sandbox here (${pid.why || 'it failed'})` };
  return net.ok ? { kind: 'bubblewrap', path, network: true } : { kind: 'bubblewrap', path, network: false, networkReason: `no network namespace here (${net.why})` };
}

async function detectSandboxExec(path: string): Promise<SandboxSupport> {
  if (!existsSync(path)) return { kind: 'none', reason: `sandbox-exec is missing (${path})` };
  const probe = await run(path, ['-p', '(version 1)(allow default)', '/usr/bin/true']);
  return probe.ok ? { kind: 'sandbox-exec', path } : { kind: 'none', reason: `sandbox-exec does not work here (${probe.why})` };
}

export function detectSandbox(opts: DetectOptions = {}): Promise<SandboxSupport> {
  const platform = opts.platform ?? process.platform;
  if (platform === 'linux') return detectBwrap(opts.bwrapPaths ?? BWRAP_PATHS);
  if (platform === 'darwin') return detectSandboxExec(opts.sandboxExecPath ?? '/usr/bin/sandbox-exec');
  return Promise.resolve({ kind: 'none', reason: `no sandbox is available on ${platform}` });
}

let cached: Promise<SandboxSupport> | undefined;

/** This process's answer, probed on first use and kept. */
export function sandboxSupport(): Promise<SandboxSupport> {
  cached ??= detectSandbox();
  return cached;
}
