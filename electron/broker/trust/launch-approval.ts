// Before a server starts: its command line waits for the person's consent (or a policy that may give
// it), and the team policy may block it outright.
import type { Actor, ServerConfig } from '../../../shared/api.js';
import { isPerson } from '../audit/change-entry.js';
import { isStdio, launchApproved, launchHash, LaunchConsentError, launchView } from './launch-consent.js';
import { policyLimitsRefusal, sealLimitsBaseline } from '../policy/policy-limits.js';
import { sameArgv } from '../policy/team-policy.js';
import type { TrustRecords } from './trust-records.js';

export class BlockedServerError extends Error {}

export function assertCanStart(t: TrustRecords, name: string, config: ServerConfig): void {
  const blocked = t.blockReason(name, config);
  if (blocked) throw new BlockedServerError(`Countersign will not start '${name}': ${blocked}.`);
  const { seal } = t.opts;
  const unsafe = seal?.unsafe();
  if (unsafe) throw new BlockedServerError(`Countersign will not start '${name}'. ${unsafe}`);
  const record = t.store.get(name);
  if (launchApproved(config, record)) {
    // Launches approved before baselines were sealed: the approved limits become the baseline now.
    if (isStdio(config) && seal && !seal.limitsBaseline(name)) t.saveOrWarn(`the approved limits of '${name}'`, () => sealLimitsBaseline(seal, name, config));
    return;
  }
  // Only a policy source that may pre-approve (never a user policy file) stands in for the person.
  const pre = t.preapproval(name);
  const entry = pre?.entry;
  // The organization (or team) reviewed this exact command: its approval stands in for the person's, within limits.
  if (isStdio(config) && entry?.command && sameArgv(entry.command, [config.command, ...(config.args ?? [])])) {
    const refused = policyLimitsRefusal(name, config, entry.limits, seal);
    if (refused) throw new LaunchConsentError(name, refused);
    // The baseline first: a failed write then leaves the launch unapproved, never approved without it.
    sealLimitsBaseline(seal, name, config);
    t.store.update(name, (r) => (r.launch = { hash: launchHash(config), approvedAt: new Date().toISOString(), by: 'policy' }));
    t.opts.record({
      kind: 'launch',
      actor: 'policy',
      server: name,
      what: pre?.managed ? 'command approved by your organization’s managed policy' : 'command approved by the team policy',
      details: launchView(config, record),
    });
    return;
  }
  throw new LaunchConsentError(name);
}

export function approveLaunch(t: TrustRecords, name: string, config: ServerConfig, actor: Actor): void {
  if (isStdio(config)) sealLimitsBaseline(t.opts.seal, name, config);
  t.store.update(name, (r) => (r.launch = { hash: launchHash(config), approvedAt: new Date().toISOString(), by: isPerson(actor) ? 'person' : 'policy' }));
  t.opts.record({ kind: 'launch', actor, server: name, what: 'command line approved', details: launchView(config, t.store.get(name)) });
}

/**
 * Tighter limits take away, so a launch approved before stays approved with them: the approval moves
 * to the new hash. Nothing moves when the old launch was not approved.
 */
export function carryLaunchApproval(t: TrustRecords, name: string, before: ServerConfig, after: ServerConfig): boolean {
  const record = t.store.get(name);
  if (!launchApproved(before, record) || !record.launch) return false;
  const by = record.launch.by;
  if (isStdio(after)) sealLimitsBaseline(t.opts.seal, name, after);
  t.store.update(name, (r) => (r.launch = { hash: launchHash(after), approvedAt: new Date().toISOString(), by }));
  return true;
}
