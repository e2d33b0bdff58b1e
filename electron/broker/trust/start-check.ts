// Whether a server may start now, and with what: it must exist, have the person's launch consent (a
// refusal waits in the queue for them), limits this machine can enforce, and a pinned package that
// still checks out. Asked before every session, relayed or in relay mode.
import type { ServerConfig } from '../../../shared/api.js';
import type { BrokerCore } from '../core/broker-core.js';
import { UnknownServerError } from '../core/server-service.js';
import { LaunchConsentError, launchView } from './launch-consent.js';
import { assertLimitsEnforceable } from './server-limits.js';

/** What to start for the server, when it exists and may start now (a pinned package checked first). */
export async function startableConfig(core: BrokerCore, serverName: string, clientKey: string): Promise<ServerConfig> {
  const config = core.store.getServer(serverName);
  if (!config) throw new UnknownServerError(serverName, Object.keys(core.store.listServers()));
  try {
    core.trust.assertCanStart(serverName, config);
  } catch (err) {
    // Refused for want of consent: logged, and waiting in the queue for the person.
    if (err instanceof LaunchConsentError) {
      const client = clientKey.startsWith('client:') ? clientKey.slice('client:'.length) : undefined;
      core.launchRequests.refused(serverName, launchView(config, core.trust.store.get(serverName)), err.reason, client);
    }
    throw err;
  }
  // Limits this machine cannot enforce stop it here, audited, before anything is installed or run.
  await assertLimitsEnforceable(core, serverName, config);
  const prepared = await core.trust.prepareLaunch(serverName, config);
  // A pinned package runs as node on its checked copy: with the limits its consent covers.
  return 'command' in config && 'command' in prepared ? { ...prepared, limits: config.limits } : prepared;
}
