// A local server's limits, kept in its launch config so the launch consent (a hash of the config)
// covers them. Tighter limits apply at once; looser ones need the person again. Every change is audited
// and ends the server's running sessions, so no process keeps limits it no longer has.
import os from 'node:os';
import type { Actor, ServerConfig, ServerLimitsView } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import {
  isLooser, limitsProblems, NO_LIMITS, offerLimits, sameLimits, summarizeEnforced, summarizeLimits, type LimitsProfile, type SandboxSupport,
} from '../../shared/limits.js';
import type { LimitsInForce } from '../../shared/enforced-limits.js';
import type { ToolDefinition } from '../../shared/tool.js';
import type { Broker } from './broker.js';
import { planEnforcement } from './sandbox/launch-plan.js';
import { assertLaunchSeen } from './seen-check.js';
import { SettingsError } from './settings-store.js';

type Stdio = Extract<ServerConfig, { command: string }>;

/** The config with these limits; none at all is stored as no field, so the launch hash is the plain one. */
export function withLimits(config: Stdio, limits: LimitsProfile): Stdio {
  const { limits: _old, ...rest } = config;
  return sameLimits(limits, NO_LIMITS) && limits.filesystem === 'host' ? rest : { ...rest, limits };
}

export async function setServerLimits(core: Broker, actor: Actor, name: string, limits: LimitsProfile, seenLaunch?: string): Promise<void> {
  const config = core.requireServer(name);
  if (!('command' in config)) throw new SettingsError(`'${escapeControl(name)}' is a remote server: limits apply to servers Countersign starts on this machine.`);
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
    what = sameLimits(limits, before) ? 'limits saved (unchanged)' : `limits tightened, applied at once${carried ? '' : ' (its command still waits for approval)'}`;
  } else if (seenLaunch !== undefined) {
    core.trust.approveLaunch(name, next, actor);
    what = 'limits loosened, with consent';
  } else {
    what = 'limits loosened: its command waits for approval again';
  }
  core.record({ kind: 'launch', actor, server: name, what: `${what}: ${summarizeLimits(limits)}`, details: { from: before, to: limits }, decision: looser ? 'allow' : 'deny' });
  // Running processes keep the limits they started with: end them, so the next start has these.
  if (!sameLimits(limits, before)) await core.closeSessionsOf(name, 'its limits changed');
  core.emit({ type: 'servers-changed' });
}

/** What the server screen shows: the limits, how they would stand here, how they stand in a running process. */
export function limitsView(config: ServerConfig, support: SandboxSupport, tools: ToolDefinition[], running: LimitsInForce | undefined, home = os.homedir()): ServerLimitsView | undefined {
  if (!('command' in config)) return undefined;
  const profile = config.limits ?? NO_LIMITS;
  const enforcement = planEnforcement(profile, support);
  const offered = offerLimits(config, { tools, home });
  const offer = offered.why.length && isLooser(profile, offered.limits) ? offered : undefined;
  return {
    profile,
    enforcement,
    badge: summarizeEnforced(profile, enforcement, home),
    ...(running ? { running: { profile: running.limits, enforcement: running.enforcement, badge: summarizeEnforced(running.limits, running.enforcement, home) } } : {}),
    ...(offer ? { offer } : {}),
  };
}
