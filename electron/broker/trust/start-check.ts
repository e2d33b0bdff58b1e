// Whether a server may start now, and with what: it must exist, have the person's launch consent (a
// refusal waits in the queue for them), limits this machine can enforce, and a pinned package that
// still checks out. Asked before every session, relayed or in relay mode.
import type { ServerConfig } from '../../../shared/api.js';
import type { BrokerCore } from '../core/broker-core.js';
import { UnknownServerError } from '../core/server-service.js';
import { LaunchConsentError, launchHash, launchView } from './launch-consent.js';
import { FillRefusedError, fillLaunch, type FillValues } from './launch-fill.js';
import { assertLimitsEnforceable } from './server-limits.js';

/** What to start for the server, when it exists and may start now (a pinned package checked first). */
export async function startableConfig(core: BrokerCore, serverName: string, clientKey: string, fills?: FillValues): Promise<ServerConfig> {
  const stored = core.store.getServer(serverName);
  if (!stored) throw new UnknownServerError(serverName, Object.keys(core.store.listServers()));
  // The client's values for the placeholders the launch declares; consent covers the filled command line.
  const client = clientKey.startsWith('client:') ? clientKey.slice('client:'.length) : undefined;
  let filled: ReturnType<typeof fillLaunch>;
  try {
    filled = fillLaunch(serverName, stored, fills);
  } catch (err) {
    // Logged with the names passed, never their values.
    if (err instanceof FillRefusedError) {
      core.record({
        kind: 'launch',
        actor: 'countersign',
        server: serverName,
        what: err.message,
        details: { filled: Object.keys(fills ?? {}), ...(client && { client }) },
        decision: 'deny',
      });
    }
    throw err;
  }
  const { run: config, consent } = filled;
  try {
    core.trust.assertCanStart(serverName, consent);
  } catch (err) {
    // Refused for want of consent: logged, and waiting in the queue for the person.
    if (err instanceof LaunchConsentError) {
      const waiting = consent === stored ? undefined : { consent, base: launchHash(stored) };
      core.launchRequests.refused(serverName, launchView(consent, core.trust.store.get(serverName)), err.reason, client, waiting);
    }
    throw err;
  }
  // Limits this machine cannot enforce stop it here, audited, before anything is installed or run.
  await assertLimitsEnforceable(core, serverName, config);
  const prepared = await core.trust.prepareLaunch(serverName, config);
  // The organization's catalogue: what runs now (its content included), and the restrictions that need it.
  await core.trust.beforeStart(serverName, config, prepared);
  // A pinned package runs as node on its checked copy: with the limits its consent covers.
  return 'command' in config && 'command' in prepared ? { ...prepared, limits: config.limits } : prepared;
}
