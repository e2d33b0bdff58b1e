// Grants the files hold but the seal does not (store/grant-seal.ts): listed for the person, who may
// confirm each as shown (it takes effect) or discard it (it is removed from the files). Both are
// audited like any change.
import type { Actor, UnsealedGrant, UnsealedRef } from '../../../shared/api.js';
import { escapeControl } from '../../../shared/escape.js';
import type { BrokerCore } from '../core/broker-core.js';
import { ChangedSinceShownError, assertLaunchSeen } from '../core/seen-check.js';
import { isStdio, launchApproved, launchHash, launchView } from '../trust/launch-consent.js';
import { policyPathHash, policyPathWarnings } from '../policy/policy-path.js';
import { setPolicyPath } from '../policy/policy-setting.js';
import { ruleHash } from './grant-seal.js';

const q = (text: string): string => `'${escapeControl(text)}'`;

export function listUnsealed(core: BrokerCore): UnsealedGrant[] {
  // In safe mode nothing is sealed and nothing can be: the status says what to fix first.
  if (core.seal.unsafe()) return [];
  const out: UnsealedGrant[] = [];
  const servers = core.store.listServers();
  for (const name of core.store.trustedInFile()) {
    if (core.store.isTrusted(name)) continue;
    const config = servers[name]!;
    out.push({
      kind: 'trust',
      server: name,
      hash: launchHash(config),
      launch: launchView(config, core.trust.store.get(name)),
      what: `${q(name)} is marked trusted in ${core.store.path}, but that trust was not given in Countersign (a hand edit, or trust given to an earlier command).`,
    });
  }
  for (const [name, config] of Object.entries(servers)) {
    const raw = core.trust.store.getRaw(name);
    if (!isStdio(config) || raw.launch?.hash !== launchHash(config) || launchApproved(config, core.trust.store.get(name))) continue;
    out.push({
      kind: 'launch',
      server: name,
      hash: launchHash(config),
      launch: launchView(config, core.trust.store.get(name)),
      what: `${q(name)}'s command is marked approved in ${core.trust.store.path}, but it was not approved in Countersign.`,
    });
  }
  const { unconfirmed } = core.policyChoice();
  if (unconfirmed) {
    out.push({
      kind: 'policy',
      server: '*',
      path: unconfirmed,
      hash: policyPathHash(unconfirmed),
      what: `${core.store.path} names the team policy file ${q(unconfirmed)}, but it was not set in Countersign. A team policy only adds friction (it blocks, pins and always asks); it never lets a server run without you.`,
    });
  }
  const effective = new Set(core.store.listRules().map((r) => r.id));
  for (const rule of core.store.rulesInFile()) {
    if (effective.has(rule.id)) continue;
    out.push({
      kind: 'rule',
      server: rule.server,
      tool: rule.tool,
      ruleId: rule.id,
      hash: ruleHash(rule),
      what: `An "always allow" rule for ${q(rule.tool)} on ${q(rule.server)} is in ${core.store.path}, but was not saved in Countersign.`,
    });
  }
  return out;
}

/** The entry as listed now, or a refusal saying it changed or is gone. */
function shownNow(core: BrokerCore, ref: UnsealedRef): UnsealedGrant {
  const found = listUnsealed(core).find((g) => g.kind === ref.kind && g.server === ref.server && (ref.kind !== 'rule' || g.ruleId === ref.ruleId));
  const what = ref.kind === 'policy' ? 'team policy path' : `${ref.kind} for ${q(ref.server)}`;
  if (!found) throw new Error(`No hand-made ${what} waits for confirmation (it was confirmed, discarded or removed).`);
  if (found.hash !== ref.hash) {
    throw new ChangedSinceShownError(`The hand-made ${what} changed after it was shown to you, so nothing was confirmed. Look at it again.`);
  }
  return found;
}

export function confirmUnsealed(core: BrokerCore, actor: Actor, ref: UnsealedRef): void {
  const grant = shownNow(core, ref);
  const details = { confirmed: 'written outside Countersign', hash: grant.hash };
  if (grant.kind === 'trust') {
    assertLaunchSeen(grant.server, core.requireServer(grant.server), grant.hash);
    core.store.setTrusted(grant.server, true);
    core.trust.onTrust(grant.server, true, core.lastTools.get(grant.server), actor, details);
    core.emit({ type: 'servers-changed' });
  } else if (grant.kind === 'launch') {
    const config = core.requireServer(grant.server);
    assertLaunchSeen(grant.server, config, grant.hash);
    core.trust.approveLaunch(grant.server, config, actor);
    core.emit({ type: 'servers-changed' });
  } else if (grant.kind === 'policy') {
    // Checked and sealed like a path the person sets: it adds friction only, never pre-approves.
    setPolicyPath(core, grant.path!, actor, details);
  } else {
    const rule = core.store.rulesInFile().find((r) => r.id === grant.ruleId)!;
    core.store.sealRule(rule);
    core.record({
      kind: 'rule',
      actor,
      server: rule.server,
      tool: rule.tool,
      what: 'hand-written rule confirmed: always allow',
      details: { ...rule, ...details },
    });
    core.emit({ type: 'rules-changed' });
  }
}

export function discardUnsealed(core: BrokerCore, actor: Actor, ref: UnsealedRef): void {
  const grant = shownNow(core, ref);
  const details = { discarded: 'written outside Countersign', hash: grant.hash };
  if (grant.kind === 'trust') {
    core.store.setTrusted(grant.server, false);
    core.record({ kind: 'trust', actor, server: grant.server, what: 'hand-made trust discarded', details, decision: 'deny' });
    core.emit({ type: 'servers-changed' });
  } else if (grant.kind === 'launch') {
    core.trust.store.update(grant.server, (r) => delete r.launch);
    core.record({ kind: 'launch', actor, server: grant.server, what: 'hand-made launch consent discarded', details, decision: 'deny' });
    core.emit({ type: 'servers-changed' });
  } else if (grant.kind === 'policy') {
    // Back to the sealed choice (or none): what the person set stays in effect either way.
    core.store.updateSettings({ policyPath: core.seal.policyPath() ?? null });
    core.record({
      kind: 'settings',
      actor,
      server: '*',
      what: 'hand-written team policy path discarded',
      details: { ...details, path: grant.path },
      decision: 'deny',
    });
    core.emit({ type: 'settings-changed' });
    core.emit({ type: 'status-changed' });
  } else {
    core.store.removeRule(grant.ruleId!);
    core.record({ kind: 'rule', actor, server: grant.server, tool: grant.tool, what: 'hand-written rule discarded', details, decision: 'deny' });
    core.emit({ type: 'rules-changed' });
  }
}

/** The store's live status lines: safe mode with its fix, grants waiting for confirmation. */
export function storeWarnings(core: BrokerCore): string[] {
  const audit = core.auditGuard.warning();
  const unsafe = core.seal.unsafe();
  return [...(audit ? [audit] : []), ...(unsafe ? [unsafe] : unsealedWarnings(core)), ...policyPathWarnings(core.policyChoice())];
}

/** One status line while anything waits, so the banner says where to look. */
function unsealedWarnings(core: BrokerCore): string[] {
  let grants: UnsealedGrant[];
  try {
    grants = listUnsealed(core);
  } catch {
    return [];
  }
  // The policy path has its own line (policy/policy-path.ts), with how to confirm it.
  grants = grants.filter((g) => g.kind !== 'policy');
  if (!grants.length) return [];
  const names = grants.map((g) => (g.kind === 'rule' ? `rule ${q(g.server)}/${q(g.tool ?? '')}` : `${g.kind} of ${q(g.server)}`));
  return [
    `${grants.length} grant${grants.length === 1 ? '' : 's'} written outside Countersign ${grants.length === 1 ? 'has' : 'have'} no effect until you confirm ${grants.length === 1 ? 'it' : 'them'} (Servers → Not confirmed): ${names.join(', ')}.`,
  ];
}
