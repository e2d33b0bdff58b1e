// What `doctor` reads from a core (a running broker, or the one the CLI opened for the command):
// its clients, servers, sandbox, seal, policy and log.
import type { ClientScanOptions } from '../../../shared/clients.js';
import type { CountersignApi, ServerView } from '../../../shared/api.js';
import type { BrokerCore } from '../core/broker-core.js';
import { VERSION } from '../core/version.js';
import type { PolicyInUse } from './policy-check.js';
import { policyPathChoice } from '../policy/policy-path.js';
import type { DoctorContext } from './report.js';
import type { LimitedServer } from './sandbox-check.js';

type Reads = Pick<CountersignApi, 'listServers' | 'listUnsealed'>;

function limitedOf(servers: ServerView[]): LimitedServer[] {
  return servers.flatMap((s) => {
    const p = 'command' in s.config ? s.config.limits : undefined;
    if (!p || (p.network !== 'none' && p.filesystem === 'host')) return [];
    return [
      { name: s.name, network: p.network === 'none', files: p.filesystem !== 'host', runsWithoutLimits: s.limits?.unenforced?.runsWithoutLimits ?? false },
    ];
  });
}

function policyOf(core: BrokerCore): PolicyInUse {
  const choice = policyPathChoice(core.opts.env ?? process.env, core.store, core.seal);
  return {
    state: core.trust.policy.current(),
    managed: core.trust.managed.current(),
    ...(choice.from ? { from: choice.from } : {}),
    ...(choice.unconfirmed ? { unconfirmed: choice.unconfirmed } : {}),
  };
}

export function coreContext(core: BrokerCore, api: Reads, opts?: ClientScanOptions): DoctorContext {
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
    policy: async () => policyOf(core),
    unsealed: async () => (await api.listUnsealed()).length,
    reach: hosted ? { kind: 'broker', version: VERSION, httpUrl: hosted, pid: process.pid } : { kind: 'none' },
  };
}
