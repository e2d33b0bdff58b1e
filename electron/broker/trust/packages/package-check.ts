// Pins that pin content. Before a pinned npx server starts, the copy npx would run is found and its
// files hashed: the same version with other content is quarantined, with both hashes. A copy that
// matches runs directly (node on its bin), so npx cannot pick another copy between the check and the
// start. This is the one place that turns a launch into "exactly these files": a sandbox can resolve
// here first, then run the resolved package without the network.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import type { PinnedPackage, ServerConfig } from '../../../../shared/api.js';
import { escapeControl } from '../../../../shared/escape.js';
import type { StdioServerSpec } from '../../upstream/server-process.js';
import { findPackageLaunch, type PackageLaunch } from '../package-launch.js';
import { hashPackageDir } from './package-hash.js';
import { findNpxPackage, npxCacheCopies, readInstalled, type InstalledPackage, type NpxLocations } from './npx-resolution.js';

/** The node a verified bin runs with: this one, or (inside Electron) the one on PATH, as npx would. */
export function defaultNode(): string {
  return process.versions.electron ? 'node' : process.execPath;
}

export interface PackageContext {
  /** npm's `_npx` cache folder. */
  npxCache: string;
  /** The node that runs a verified package's bin (npx would use the one on PATH). */
  node: string;
  /**
   * Copies Countersign prepared for servers under limits (run offline, without npx). `install` puts the
   * pinned version there when npx has no copy and the server runs under limits.
   */
  prepared?: { nodeModules(name: string, version: string): string; install(name: string, version: string): Promise<string> };
}

/** An installed package and the hash of its files. */
export interface CheckedPackage extends InstalledPackage {
  contentHash: string;
}

export type LaunchCheck =
  /** What to spawn: the config as written, or node on the checked package's bin. */
  | { ok: true; spec: StdioServerSpec; checked?: CheckedPackage }
  /** `quarantine`: the content differs from the pin (the server is quarantined with this reason). */
  | { ok: false; why: string; quarantine?: string };

type Stdio = Extract<ServerConfig, { command: string }>;

function locations(config: Stdio, ctx: PackageContext): NpxLocations {
  return { cwd: config.cwd ?? process.cwd(), npxCache: ctx.npxCache };
}

function npxLaunch(config: ServerConfig): (PackageLaunch & { spec: string }) | undefined {
  const launch = findPackageLaunch(config);
  if (!launch || launch.kind !== 'npx' || !launch.version || !('command' in config)) return undefined;
  return { ...launch, spec: config.args![launch.index]! };
}

/** The copy of a pinned npx package that will run, checked against the pin. */
export async function checkPinnedLaunch(name: string, config: ServerConfig, pinned: PinnedPackage | undefined, ctx: PackageContext): Promise<LaunchCheck> {
  if (!('command' in config)) return { ok: true, spec: config as never };
  if (!pinned || pinned.kind !== 'npx' || !pinned.contentHash) return { ok: true, spec: config };
  const launch = npxLaunch(config);
  if (!launch || `${launch.name}@${launch.version}` !== pinned.spec) {
    const why = `its command no longer runs the pinned package ${pinned.spec}`;
    return { ok: false, why: stopped(name, why), quarantine: why };
  }
  const wouldRun = findNpxPackage(launch.name, launch.version!, launch.spec, locations(config, ctx));
  if (wouldRun) {
    const contentHash = await hashPackageDir(wouldRun.dir);
    if (contentHash !== pinned.contentHash) {
      const why = `the package it would run (${pinned.spec} in ${wouldRun.dir}) has content ${contentHash}, but the pin recorded ${pinned.contentHash}`;
      return { ok: false, why: stopped(name, why), quarantine: why };
    }
    return { ok: true, spec: direct(config, launch, wouldRun, ctx.node), checked: { ...wouldRun, contentHash } };
  }
  // npx would download it now: run a copy already in its cache only if it is the pinned content.
  for (const copy of npxCacheCopies(launch.name, launch.version!, ctx.npxCache)) {
    const contentHash = await hashPackageDir(copy.dir);
    if (contentHash === pinned.contentHash) return { ok: true, spec: direct(config, launch, copy, ctx.node), checked: { ...copy, contentHash } };
  }
  // Under limits the package runs offline from a copy Countersign prepared: the same content check.
  if (ctx.prepared && underLimits(config)) {
    const nodeModules = existsSync(ctx.prepared.nodeModules(launch.name, launch.version!))
      ? ctx.prepared.nodeModules(launch.name, launch.version!)
      : await ctx.prepared.install(launch.name, launch.version!).catch(() => undefined);
    const copy = nodeModules ? readInstalled(nodeModules, launch.name, launch.version!, 'prepared') : undefined;
    if (copy) {
      const contentHash = await hashPackageDir(copy.dir);
      if (contentHash !== pinned.contentHash) {
        const why = `the package prepared for its sandbox (${pinned.spec} in ${copy.dir}) has content ${contentHash}, but the pin recorded ${pinned.contentHash}`;
        return { ok: false, why: stopped(name, why), quarantine: why };
      }
      return { ok: true, spec: direct(config, launch, copy, ctx.node), checked: { ...copy, contentHash } };
    }
  }
  return {
    ok: false,
    why:
      stopped(
        name,
        `the pinned package ${pinned.spec} (content ${pinned.contentHash}) is not installed where Countersign can check it, and npx would fetch it now`,
      ) + ' To run what npx installs now, unpin the server and pin it again.',
  };
}

/** At pin time: the copy that ran (the probe or a client just used it), for its content hash. */
export async function installedForPin(pinned: ServerConfig, original: ServerConfig, ctx: PackageContext): Promise<CheckedPackage | undefined> {
  const launch = npxLaunch(pinned);
  if (!launch || !('command' in pinned)) return undefined;
  const before = npxLaunch(original);
  const found =
    findNpxPackage(launch.name, launch.version!, launch.spec, locations(pinned, ctx)) ??
    (before ? findNpxPackage(launch.name, launch.version!, before.spec, locations(pinned, ctx)) : undefined) ??
    npxCacheCopies(launch.name, launch.version!, ctx.npxCache)[0] ??
    // A server under limits ran the copy Countersign prepared for it.
    (ctx.prepared && underLimits(pinned)
      ? readInstalled(ctx.prepared.nodeModules(launch.name, launch.version!), launch.name, launch.version!, 'prepared')
      : undefined);
  return found ? { ...found, contentHash: await hashPackageDir(found.dir) } : undefined;
}

/** Limits that make a launch run its package from a prepared copy (sandbox/package-prep.ts). */
function underLimits(config: ServerConfig): boolean {
  return 'command' in config && !!config.limits && (config.limits.network === 'none' || config.limits.filesystem !== 'host');
}

function stopped(name: string, why: string): string {
  return `Countersign will not start '${escapeControl(name)}': ${escapeControl(why)}.`;
}

/** node on the checked copy's bin, with the server's own arguments: npx cannot re-resolve in between. */
function direct(config: Stdio, launch: PackageLaunch, pkg: InstalledPackage, node: string): StdioServerSpec {
  const args = config.args ?? [];
  const positional = !args.slice(0, launch.index).some((a) => a === '-p' || a === '--package');
  if (!positional || !pkg.bin || !isNodeScript(pkg.bin)) return config;
  return { command: node, args: [pkg.bin, ...args.slice(launch.index + 1)], env: config.env, cwd: config.cwd };
}

function isNodeScript(file: string): boolean {
  if (/\.[cm]?js$/.test(file)) return true;
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(128);
      const n = readSync(fd, buf, 0, 128, 0);
      const first = buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
      return first.startsWith('#!') && /\bnode\b/.test(first);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
