// Whether a server may start now, and with what: it must exist, have the person's launch consent (a
// refusal waits in the queue for them), limits this machine can enforce, and a pinned package that
// still checks out. Asked before every session, relayed or in relay mode.
import type { ServerConfig } from '../../../shared/api.js';
import type { BrokerCore } from '../core/broker-core.js';
import { UnknownServerError } from '../core/server-service.js';
import { LaunchConsentError, launchHash, launchView } from './launch-consent.js';
import { fillLaunch, type FillValues } from './launch-fill.js';
import { assertLimitsEnforceable } from './server-limits.js';

/** What to start for the server, when it exists and may start now (a pinned package checked first). */
export async function startableConfig(core: BrokerCore, serverName: string, clientKey: string, fills?: FillValues): Promise<ServerConfig> {
  const stored = core.store.getServer(serverName);
  if (!stored) throw new UnknownServerError(serverName, Object.keys(core.store.listServers()));
  // The client's values for the placeholders the launch declares; consent covers the filled command line.
  const { run: config, consent } = fillLaunch(serverName, stored, fills);
  try {
    core.trust.assertCanStart(serverName, consent);
  } catch (err) {
    // Refused for want of consent: logged, and waiting in the queue for the person.
    if (err instanceof LaunchConsentError) {
      const client = clientKey.startsWith('client:') ? clientKey.slice('client:'.length) : undefined;
      const filled = consent === stored ? undefined : { consent, base: launchHash(stored) };
      core.launchRequests.refused(serverName, launchView(consent, core.trust.store.get(serverName)), err.reason, client, filled);
    }
    throw err;
  }
  // Limits this machine cannot enforce stop it here, audited, before anything is installed or run.
  await assertLimitsEnforceable(core, serverName, config);
  const prepared = await core.trust.prepareLaunch(serverName, config);
  // A pinned package runs as node on its checked copy: with the limits its consent covers.
  return 'command' in config && 'command' in prepared ? { ...prepared, limits: config.limits } : prepared;
}
