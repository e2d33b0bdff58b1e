// What `doctor` reads from a core (a running broker, or the one the CLI opened for the command):
// its clients, servers, sandbox, seal, policy and log.
import type { ClientScanOptions } from '../../../shared/clients.js';
import type { CountersignApi, ServerView } from '../../../shared/api.js';
import type { Broker } from '../broker.js';
import { VERSION } from '../broker-api.js';
import type { PolicyInUse } from './policy-check.js';
import type { DoctorContext } from './report.js';
import type { LimitedServer } from './sandbox-check.js';

type Reads = Pick<CountersignApi, 'listServers' | 'listUnsealed' | 'queryLog'>;

const POLICY_SET = 'team policy file set to ';

function limitedOf(servers: ServerView[]): LimitedServer[] {
  return servers.flatMap((s) => {
    const p = 'command' in s.config ? s.config.limits : undefined;
    if (!p || (p.network !== 'none' && p.filesystem === 'host')) return [];
    return [{ name: s.name, network: p.network === 'none', files: p.filesystem !== 'host', runsWithoutLimits: s.limits?.unenforced?.runsWithoutLimits ?? false }];
  });
}

async function policyOf(core: Broker, api: Reads): Promise<PolicyInUse> {
  const env = core.opts.env ?? process.env;
  const state = core.trust.policy.current();
  if (state.kind === 'none') return { state };
  if (env.COUNTERSIGN_POLICY) return { state, from: 'COUNTERSIGN_POLICY' };
  // The last time it was set in Countersign, if the log still holds it.
  const sets = (await api.queryLog({ search: POLICY_SET })).filter((e) => e.kind === 'settings' && e.detail?.startsWith(POLICY_SET));
  const last = sets.reduce<(typeof sets)[number] | undefined>((a, e) => (!a || e.seq > a.seq ? e : a), undefined);
  return { state, from: 'settings.json', setInCountersign: last?.detail === `${POLICY_SET}${state.path}` };
}

export function coreContext(core: Broker, api: Reads, opts?: ClientScanOptions): DoctorContext {
  let servers: Promise<ServerView[]> | undefined;
  const listed = (): Promise<ServerView[]> => (servers ??= api.listServers());
  const hosted = core.endpoints.httpUrl;
  return {
    dataDir: core.opts.dataDir,
    env: core.opts.env ?? process.env,
    platform: process.platform,
    sandbox: () => core.sandbox(),
    clients: () => core.clients.listClients(opts),
    servers: listed,
    limited: async () => limitedOf(await listed()),
    keyWhere: core.seal.keyWhere,
    keyFile: core.seal.protectedPaths()[0]?.path,
    policy: () => policyOf(core, api),
    unsealed: async () => (await api.listUnsealed()).length,
    reach: hosted ? { kind: 'broker', version: VERSION, httpUrl: hosted, pid: process.pid } : { kind: 'none' },
  };
}
