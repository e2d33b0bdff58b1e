// The seam for a managed policy (issue 21, point 5): only a policy source that says it may pre-approve
// stands in for the person's launch consent, and then only within limits (policy/policy-limits.ts). A
// user policy file says it may not, whatever its `command` entries say. Real stores, seal and files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/api.js';
import type { Change } from '../../electron/broker/audit/change-entry.js';
import { GrantSeal } from '../../electron/broker/store/grant-seal.js';
import { SettingsStore } from '../../electron/broker/store/settings-store.js';
import { LaunchConsentError, launchApproved } from '../../electron/broker/trust/launch-consent.js';
import { TrustManager } from '../../electron/broker/trust/trust-manager.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CONFIG = {
  command: 'node',
  args: ['server.js'],
  limits: { network: 'none', filesystem: { read: ['/srv'], write: [] }, passEnv: [] },
} satisfies ServerConfig;

function manager(mayPreapprove: boolean, entry: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'cs-preapprove-'));
  dirs.push(dir);
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, JSON.stringify({ version: 1, servers: { s: { command: ['node', 'server.js'], ...entry } } }));
  const seal = GrantSeal.open(dir, process.env, () => undefined);
  const { store } = SettingsStore.open({ dataDir: dir, seal });
  store.addServer('s', CONFIG);
  const changes: Change[] = [];
  const trust = new TrustManager({
    dataDir: dir,
    settings: store,
    record: (c) => changes.push(c),
    emit: () => undefined,
    warn: () => undefined,
    policyPath: () => policy,
    policyMayPreapprove: mayPreapprove,
    seal,
  });
  return { trust, changes, seal };
}

describe('policy pre-approval', () => {
  it('a user policy (the only kind built) never stands in for the person', () => {
    const { trust, changes, seal } = manager(false, {});
    expect(trust.policy.mayPreapprove).toBe(false);
    expect(() => trust.assertCanStart('s', CONFIG)).toThrow(LaunchConsentError);
    expect(launchApproved(CONFIG, trust.store.get('s'))).toBe(false);
    expect(seal.grants().launch).toEqual({});
    expect(changes).toEqual([]);
  });

  it('a source that may pre-approve covers the exact command within the limits it states, sealed and audited', () => {
    const { trust, changes, seal } = manager(true, { limits: CONFIG.limits });
    trust.assertCanStart('s', CONFIG);
    expect(trust.store.get('s').launch?.by).toBe('policy');
    expect(Object.keys(seal.grants().launch)).toEqual(['s']);
    expect(changes.map((c) => [c.actor, c.what])).toEqual([['policy', 'command approved by the team policy']]);

    const looser = { ...CONFIG, limits: { ...CONFIG.limits, network: 'unrestricted' as const } };
    expect(() => manager(true, { limits: CONFIG.limits }).trust.assertCanStart('s', looser)).toThrow(/only with these limits or tighter/);
  });
});
