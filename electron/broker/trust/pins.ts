// Pins: a server held to what runs now (its version, its tool definitions, the exact package), and the
// check that what starts is still that package.
import type { Actor, ServerConfig } from '../../../shared/api.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { PinView } from '../../../shared/trust-types.js';
import { listingHash } from './definition-tracker.js';
import { launchHash } from './launch-consent.js';
import { checkPinnedLaunch, defaultNode, type PackageContext } from './packages/package-check.js';
import { npxCacheDir } from './packages/npx-resolution.js';
import { pinPackage } from './pin-package.js';
import type { TrustRecords } from './trust-records.js';
import type { PinRecord } from './trust-store.js';

/** A pinned package could not be checked, or is not the pinned content: it does not start. */
export class PackageRefusedError extends Error {}

/** Pins to what runs now. npx/uvx/docker launches are rewritten to the exact package version or digest. */
export async function pin(
  t: TrustRecords,
  server: string,
  config: ServerConfig,
  tools: ToolDefinition[],
  actor: Actor,
  stillCurrent: () => void = () => undefined,
): Promise<{ pin: PinView; config?: ServerConfig }> {
  const identity = t.identities.get(server);
  const { package: pkg, config: newConfig, rewrite } = await pinPackage(config, t.opts.resolver, packageContext(t));
  const made: PinRecord = {
    version: identity?.serverInfo?.version,
    definitionsHash: listingHash(tools),
    package: pkg,
    rewrite,
    pinnedAt: new Date().toISOString(),
    by: 'person',
  };
  stillCurrent();
  t.store.update(server, (r) => {
    r.pin = made;
    delete r.quarantine;
    // The person asked for this rewrite and is shown it: it counts as their consent to the new command.
    if (newConfig) r.launch = { hash: launchHash(newConfig), approvedAt: made.pinnedAt, by: 'person' };
  });
  t.liftUnsavedQuarantine(server);
  t.opts.record({ kind: 'pin', actor, server, what: rewrite ? `pinned; launch rewritten to ${rewrite.to.join(' ')}` : 'pinned', details: made });
  t.opts.emit({ type: 'servers-changed' });
  return { pin: made, config: newConfig };
}

function packageContext(t: TrustRecords): PackageContext {
  return { npxCache: t.opts.npxCache ?? npxCacheDir(), node: defaultNode(), prepared: t.opts.prepared };
}

/**
 * What actually starts: for a pinned npx package, the checked copy (node on its bin). Same version,
 * other content: quarantined with both hashes, and nothing starts.
 */
export async function prepareLaunch(t: TrustRecords, server: string, config: ServerConfig): Promise<ServerConfig> {
  const check = await checkPinnedLaunch(server, config, t.store.get(server).pin?.package, packageContext(t));
  if (check.ok) return check.spec;
  if (check.quarantine) t.quarantine(server, check.quarantine);
  throw new PackageRefusedError(check.why);
}

export function unpin(t: TrustRecords, server: string, actor: Actor): void {
  if (t.managed.serverEntry(server)?.pin)
    throw new Error(`'${server}' is pinned by your organization’s managed policy (managed by your organization); only the organization can unpin it.`);
  if (t.policy.serverEntry(server)?.pin) throw new Error(`'${server}' is pinned by the team policy; only the policy can unpin it.`);
  t.store.update(server, (r) => {
    delete r.pin;
    delete r.quarantine;
  });
  t.liftUnsavedQuarantine(server);
  t.opts.record({ kind: 'pin', actor, server, what: 'unpinned', decision: 'deny' });
  t.opts.emit({ type: 'servers-changed' });
}
