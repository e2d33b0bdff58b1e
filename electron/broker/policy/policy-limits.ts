// A team-policy pre-approval covers a command with limits, never without them: an entry that states
// limits covers the command only with those (or tighter); one that states none covers it only with the
// limits of the server's last approved launch (sealed, so no file edit can loosen or erase them).
// Anything looser needs the person's consent.
import type { ServerConfig } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import { isLooser, NO_LIMITS, summarizeLimits, type LimitsProfile } from '../../../shared/limits.js';
import type { GrantSeal } from '../store/grant-seal.js';

type Stdio = Extract<ServerConfig, { command: string }>;

/** Why the policy entry does not cover this launch's limits, or undefined when it does. */
export function policyLimitsRefusal(name: string, config: Stdio, stated: LimitsProfile | undefined, seal: GrantSeal | undefined): string | undefined {
  const limits = config.limits ?? NO_LIMITS;
  const now = summarizeLimits(limits);
  if (stated) {
    return isLooser(limits, stated)
      ? `the team policy approves it only with these limits: ${summarizeLimits(stated)}; it is set to run with ${now}`
      : undefined;
  }
  if (!seal) return undefined;
  const baseline = seal.limitsBaseline(name);
  if (baseline) {
    return isLooser(limits, baseline)
      ? `the team policy approves the command, not looser limits than last approved (${summarizeLimits(baseline)}); it is set to run with ${now}`
      : undefined;
  }
  // A baseline sealed before may have gone with the sealed file: nothing can be assumed then.
  if (seal.recordsLost())
    return `the team policy approves the command, but Countersign's sealed records are missing, so the limits you approved for it are not known`;
  return undefined; // its first approved launch: these limits become the baseline
}

/** Seals the limits of an approved launch as the baseline (throws when it cannot be saved). */
export function sealLimitsBaseline(seal: GrantSeal | undefined, name: string, config: Stdio): void {
  const limits = canonicalJson(config.limits ?? NO_LIMITS);
  seal?.update((g) => void ((g.limits ??= {})[name] = limits));
}

/** Drops the baseline (the person removed the server through Countersign). */
export function forgetLimitsBaseline(seal: GrantSeal | undefined, name: string): void {
  seal?.withdraw((g) => {
    if (g.limits) delete g.limits[name];
  });
}
