// A local server's limits, kept in its launch config so the launch consent (a hash of the config)
// covers them. Tighter limits apply at once; looser ones need the person again. Every change is audited
// and ends the server's running sessions, so no process keeps limits it no longer has. Limits this
// machine cannot enforce stop the server (fail closed) unless the person lets it run without them.
import os from 'node:os';
import type { Actor, ServerConfig, ServerLimitsView } from '../../../shared/api.js';
import { escapeControl } from '../../../shared/escape.js';
import {
  isLooser,
  limitsProblems,
  NO_LIMITS,
  offerLimits,
  sameLimits,
  summarizeEnforced,
  summarizeLimits,
  unenforcedLimits,
  type LimitsProfile,
  type SandboxSupport,
} from '../../../shared/limits.js';
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import { networkEnvSet } from '../../../shared/network-env.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { BrokerCore } from '../core/broker-core.js';
import { hiddenFor, type HideSpec } from '../upstream/sandbox/hidden-paths.js';
import { LimitsUnenforceable, planEnforcement } from '../upstream/sandbox/launch-plan.js';
import { assertLaunchSeen } from '../core/seen-check.js';
import { SettingsError } from '../store/settings-store.js';
import { allowWithoutLimits, runsWithoutLimits, withdrawWithoutLimits } from './run-without-limits.js';

type Stdio = Extract<ServerConfig, { command: string }>;

/** The config with these limits; none at all is stored as no field, so the launch hash is the plain one. */
export function withLimits(config: Stdio, limits: LimitsProfile): Stdio {
  const { limits: _old, ...rest } = config;
  return sameLimits(limits, NO_LIMITS) && limits.filesystem === 'host' ? rest : { ...rest, limits };
}

export async function setServerLimits(core: BrokerCore, actor: Actor, name: string, limits: LimitsProfile, seenLaunch?: string): Promise<void> {
  const config = core.requireServer(name);
  if (!('command' in config))
    throw new SettingsError(`'${escapeControl(name)}' is a remote server: limits apply to servers Countersign starts on this machine.`);
  const problems = limitsProblems(limits);
  if (problems.length) throw new SettingsError(`These limits cannot be used: ${problems.join('; ')}.`);
  const before = config.limits ?? NO_LIMITS;
  const next = withLimits(config, limits);
  const looser = isLooser(limits, before);
  // A looser profile is approved only with the launch the person saw: its hash, plus these limits.
  if (seenLaunch !== undefined) assertLaunchSeen(name, config, seenLaunch);
  core.store.updateServerConfig(name, next);
  let what: string;
  if (!looser) {
    const carried = core.trust.carryLaunchApproval(name, config, next);
    what = sameLimits(limits, before)
      ? 'limits saved (unchanged)'
      : `limits tightened, applied at once${carried ? '' : ' (its command still waits for approval)'}`;
  } else if (seenLaunch !== undefined) {
    core.trust.approveLaunch(name, next, actor);
    what = 'limits loosened, with consent';
  } else {
    what = 'limits loosened: its command waits for approval again';
  }
  core.record({
    kind: 'launch',
    actor,
    server: name,
    what: `${what}: ${summarizeLimits(limits)}`,
    details: { from: before, to: limits },
    decision: looser ? 'allow' : 'deny',
  });
  // Running processes keep the limits they started with: end them, so the next start has these.
  if (!sameLimits(limits, before)) await core.closeSessionsOf(name, 'its limits changed');
  core.emit({ type: 'servers-changed' });
}

/**
 * Before a start: limits asked that this machine cannot enforce refuse the launch, with the reason and
 * the fix, and the refusal is audited; unless the person let this exact launch run without them.
 */
export async function assertLimitsEnforceable(core: BrokerCore, name: string, config: ServerConfig): Promise<void> {
  if (!('command' in config) || !config.limits) return;
  const enforcement = planEnforcement(config.limits, await core.sandbox());
  const missing = unenforcedLimits(enforcement);
  if (!missing.length) return;
  const limits = summarizeLimits(config.limits);
  if (runsWithoutLimits(core.seal, name, config)) {
    core.record({
      kind: 'launch',
      actor: 'countersign',
      server: name,
      what: `started without its limits (${limits}), as you allowed: ${enforcement.reason ?? 'no sandbox'}`,
      details: { limits: config.limits, enforcement },
      decision: 'allow',
    });
    return;
  }
  const refusal = new LimitsUnenforceable(config.limits, enforcement, name);
  core.record({
    kind: 'launch',
    actor: 'countersign',
    server: name,
    what: `not started: its limits (${limits}) cannot be enforced here: ${enforcement.reason ?? 'no sandbox'}`,
    details: { limits: config.limits, enforcement },
    decision: 'deny',
  });
  core.lastErrors.set(name, refusal.message);
  core.emit({ type: 'servers-changed' });
  throw refusal;
}

/**
 * The person lets a server run without the limits this machine cannot enforce (bound to the launch
 * they saw), or takes that back. Only a person's surface gives it; it is sealed and audited.
 */
export async function setRunWithoutLimits(core: BrokerCore, actor: Actor, name: string, allowed: boolean, seenLaunch?: string): Promise<void> {
  const config = core.requireServer(name);
  if (!('command' in config))
    throw new SettingsError(`'${escapeControl(name)}' is a remote server: limits apply to servers Countersign starts on this machine.`);
  if (!allowed) {
    withdrawWithoutLimits(core.seal, name);
    core.record({
      kind: 'launch',
      actor,
      server: name,
      what: 'its limits are required again: it does not start where they cannot be enforced',
      decision: 'deny',
    });
    // A process started without its limits must not outlive the consent.
    if (core.runningLimits(name).some((r) => r.enforcement.runsWithoutLimits)) await core.closeSessionsOf(name, 'it may no longer run without its limits');
    core.emit({ type: 'servers-changed' });
    return;
  }
  if (actor !== 'browser' && actor !== 'desktop' && actor !== 'cli')
    throw new SettingsError('Only you can let a server run without its limits, in Countersign itself.');
  if (seenLaunch === undefined) throw new SettingsError(`Letting '${escapeControl(name)}' run without its limits needs the launch you saw (its launch hash).`);
  assertLaunchSeen(name, config, seenLaunch);
  const limits = config.limits ?? NO_LIMITS;
  const enforcement = planEnforcement(limits, await core.sandbox());
  allowWithoutLimits(core.seal, name, config);
  core.record({
    kind: 'launch',
    actor,
    server: name,
    what: `may run without its limits (${summarizeLimits(limits)}) where they cannot be enforced${unenforcedLimits(enforcement).length ? `: ${enforcement.reason ?? 'no sandbox'}` : ' (they are enforced here now)'}`,
    details: { limits, enforcement },
    decision: 'allow',
  });
  core.lastErrors.delete(name);
  core.emit({ type: 'servers-changed' });
}

export interface LimitsViewOptions {
  home?: string;
  /** Countersign's own files: which of them its sandbox would hide from it. */
  hide?: HideSpec;
  /** The person let it run without limits this machine cannot enforce. */
  runsWithoutLimits?: boolean;
  /** The environment servers inherit from (for the names of the network variables it gets). */
  env?: NodeJS.ProcessEnv;
}

/** What the server screen shows: the limits, how they would stand here, how they stand in a running process. */
export function limitsView(
  config: ServerConfig,
  support: SandboxSupport,
  tools: ToolDefinition[],
  running: LimitsInForce | undefined,
  opts: LimitsViewOptions = {},
): ServerLimitsView | undefined {
  if (!('command' in config)) return undefined;
  const home = opts.home ?? os.homedir();
  const profile = config.limits ?? NO_LIMITS;
  const enforcement = planEnforcement(profile, support);
  const offered = offerLimits(config, { tools, home });
  const offer = offered.why.length && isLooser(profile, offered.limits) ? offered : undefined;
  const unenforced = unenforcedLimits(enforcement).length
    ? { reason: enforcement.reason ?? 'no sandbox', ...(enforcement.fix ? { fix: enforcement.fix } : {}), runsWithoutLimits: !!opts.runsWithoutLimits }
    : undefined;
  const env = opts.env ?? process.env;
  return {
    profile,
    networkEnv: networkEnvSet(
      Object.keys(env).filter((k) => env[k] !== undefined),
      profile,
      process.platform,
    ),
    enforcement,
    badge: summarizeEnforced(profile, enforcement, home),
    hidden: opts.hide && !unenforced ? hiddenFor(profile, support, opts.hide) : [],
    ...(unenforced ? { unenforced } : {}),
    ...(running
      ? { running: { profile: running.limits, enforcement: running.enforcement, badge: summarizeEnforced(running.limits, running.enforcement, home) } }
      : {}),
    ...(offer ? { offer } : {}),
  };
}
