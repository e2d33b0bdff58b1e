// Setting the user policy path through the core (policy/policy-path.ts says which path is in effect):
// sealed, then written, audited; and what the status says of it.
import fs from 'node:fs';
import path from 'node:path';
import type { Actor, PolicyStatus } from '../../../shared/api.js';
import { escapeControl } from '../../../shared/escape.js';
import type { BrokerCore } from '../core/broker-core.js';
import { SettingsError } from '../store/settings-store.js';
import { parsePolicy } from './team-policy.js';

/** Sets (sealed, then written) or removes the user policy path; audited. Throws when nothing could be saved. */
export function setPolicyPath(core: BrokerCore, to: string | null, actor: Actor, details: Record<string, unknown> = {}): void {
  const from = core.seal.policyPath();
  if (to !== null) checkPolicyFile(to);
  // Sealed first: a failed seal leaves everything as it was; a crash between leaves the person's choice
  // sealed (in effect) and settings.json behind, which the status says.
  core.seal.update((g) => {
    if (to === null) delete g.policy;
    else g.policy = to;
  });
  core.store.updateSettings({ policyPath: to });
  core.record({
    kind: 'settings',
    actor,
    server: '*',
    what: to === null ? `team policy file removed${from ? ` (was ${from})` : ''}` : `team policy file set to ${to}`,
    details: { from: from ?? null, to, ...details },
    decision: to === null ? 'deny' : 'allow',
  });
  core.emit({ type: 'settings-changed' });
  core.emit({ type: 'status-changed' });
}

/** Refused unless absolute and a policy Countersign can read: a bad path would block every server. */
function checkPolicyFile(file: string): void {
  if (!path.isAbsolute(file)) throw new SettingsError(`Nothing changed: the team policy file must be an absolute path, not '${escapeControl(file)}'.`);
  try {
    parsePolicy(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SettingsError(
      `Nothing changed: ${escapeControl(file)} is not a team policy Countersign can read (${escapeControl((error as Error).message.split('\n')[0] ?? '')}).`,
    );
  }
}

/** What getStatus says of the policy: the file in effect and who chose it, and one nobody confirmed. */
export function policyStatus(core: BrokerCore): PolicyStatus {
  const choice = core.policyChoice();
  const state = core.trust.policy.current();
  return {
    ...(choice.path ? { path: choice.path, from: choice.from } : {}),
    ...(state.kind === 'broken' ? { error: state.error } : {}),
    mayPreapprove: core.trust.policy.mayPreapprove,
    ...(choice.unconfirmed ? { unconfirmed: choice.unconfirmed } : {}),
  };
}
