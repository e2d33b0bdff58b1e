// Adding and removing a server: the one path both the API (broker-api.ts) and the client wiring
// (clients/, wrap and unwrap) take, so each change is stored, audited with who made it, and announced
// the same way from every surface.
import type { Actor, ServerConfig } from '../../../shared/api.js';
import { parseServerConfig } from '../store/settings-store.js';
import type { BrokerCore } from './broker-core.js';

/** Stores a new server and audits it (`what`: how it came), without announcing it. */
export function storeNewServer(core: BrokerCore, actor: Actor, name: string, config: ServerConfig, what = 'server added'): void {
  core.store.addServer(name, config);
  core.record({ kind: 'server', actor, server: name, what, details: redactConfig(config) });
}

export async function addServer(core: BrokerCore, actor: Actor, name: string, config: ServerConfig): Promise<void> {
  storeNewServer(core, actor, name, config);
  core.emit({ type: 'servers-changed' });
}

/** Removes a server with its trust, records and rules, and ends its sessions. */
export async function removeServer(core: BrokerCore, actor: Actor, name: string): Promise<void> {
  const config = core.requireServer(name);
  core.store.removeServer(name);
  core.trust.forget(name);
  core.lastTools.delete(name);
  core.startTimes.forget(name);
  core.record({
    kind: 'server',
    actor,
    server: name,
    what: 'server removed, with its trust, records and rules',
    details: redactConfig(config),
    decision: 'deny',
  });
  await core.closeSessionsOf(name, 'server removed');
  core.emit({ type: 'servers-changed' });
  core.emit({ type: 'rules-changed' });
}

/** Client configs carry extra keys (type, disabled…): keep only the launch fields. */
export function pickLaunch(raw: unknown): ServerConfig {
  const r = (raw ?? {}) as Record<string, unknown>;
  const picked = 'url' in r ? { url: r.url, headers: r.headers } : { command: r.command, args: r.args, env: r.env, cwd: r.cwd };
  return parseServerConfig(JSON.parse(JSON.stringify(picked)));
}

/** Header and env values can hold secrets: the UI and the log see their names, not their values. */
export function redactConfig(config: ServerConfig): ServerConfig {
  if ('url' in config) {
    return { url: config.url, headers: config.headers ? Object.fromEntries(Object.keys(config.headers).map((k) => [k, '••••'])) : undefined };
  }
  return { ...config, env: config.env ? Object.fromEntries(Object.keys(config.env).map((k) => [k, '••••'])) : undefined };
}

export class UnknownServerError extends Error {
  constructor(
    readonly server: string,
    known: string[],
  ) {
    super(
      `Countersign has no server named '${server}'. ` +
        (known.length ? `Known servers: ${known.join(', ')}.` : 'No servers are configured yet.') +
        ` Add one with: countersign servers add ${server} -- <command> [args…]`,
    );
  }
}
