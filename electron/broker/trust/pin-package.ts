// What a pin records of the package a server runs: the exact version (an unversioned npx/uvx/docker
// launch is rewritten to name it), the registry's integrity for it, and the hash of the installed files
// that ran, which is checked before every later start (packages/package-check.ts).
import type { ServerConfig } from '../../../shared/api.js';
import { installedForPin, type PackageContext } from './packages/package-check.js';
import { exactSpec, findPackageLaunch, rewriteLaunch } from './package-launch.js';
import type { PinRecord } from './trust-store.js';
import { asResolved, resolveExactVersion, type VersionResolver } from './version-resolver.js';

export interface PackagePin {
  package?: PinRecord['package'];
  /** The launch rewritten to the exact version, when pinning changed it. */
  config?: ServerConfig;
  rewrite?: PinRecord['rewrite'];
}

export async function pinPackage(config: ServerConfig, resolver: VersionResolver | undefined, ctx: PackageContext): Promise<PackagePin> {
  const launch = findPackageLaunch(config);
  if (!launch || !('command' in config)) return {};
  const out: PackagePin = {};
  if (launch.exact) {
    out.package = { kind: launch.kind, spec: config.args![launch.index]! };
  } else {
    const resolved = asResolved(await (resolver ?? resolveExactVersion)(launch));
    const spec = exactSpec(launch, resolved.version);
    const rewritten = rewriteLaunch(config, launch, spec);
    out.config = rewritten;
    out.package = { kind: launch.kind, spec, ...(resolved.integrity && { integrity: resolved.integrity }) };
    out.rewrite = { from: [config.command, ...(config.args ?? [])], to: [rewritten.command, ...(rewritten.args ?? [])] };
  }
  if (launch.kind === 'npx') {
    const installed = await installedForPin(out.config ?? config, config, ctx);
    if (installed) Object.assign(out.package, { contentHash: installed.contentHash, installedAt: installed.dir });
  }
  return out;
}
