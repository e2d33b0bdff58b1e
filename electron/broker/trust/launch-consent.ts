// A server's command does not run until a person approved its exact command line. The consent is a
// hash of everything that decides what runs (command, args, env, cwd, and its limits when it has any),
// so any edit asks again; limits only count when set, so a server without them keeps its old hash.
import { createHash } from 'node:crypto';
import type { ServerConfig } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { LaunchView } from '../../../shared/trust-types.js';
import type { ServerTrust } from './trust-store.js';

export function isStdio(config: ServerConfig): config is Extract<ServerConfig, { command: string }> {
  return 'command' in config;
}

export function launchHash(config: ServerConfig): string {
  const what = isStdio(config)
    ? { command: config.command, args: config.args ?? [], env: config.env ?? {}, cwd: config.cwd ?? null, ...(config.limits ? { limits: config.limits } : {}) }
    : { url: config.url, headers: config.headers ?? {} };
  return createHash('sha256').update(canonicalJson(what)).digest('hex');
}

/** Remote servers start nothing on this machine; stdio servers need the person's consent. */
export function launchApproved(config: ServerConfig, record: ServerTrust): boolean {
  if (!isStdio(config)) return true;
  return record.launch?.hash === launchHash(config);
}

export function launchView(config: ServerConfig, record: ServerTrust): LaunchView {
  const approved = launchApproved(config, record);
  if (isStdio(config)) {
    return {
      commandLine: [config.command, ...(config.args ?? [])],
      cwd: config.cwd,
      envNames: Object.keys(config.env ?? {}),
      headerNames: [],
      ...(config.limits ? { limits: config.limits } : {}),
      hash: launchHash(config),
      approved,
      approvedBy: approved ? record.launch?.by : undefined,
    };
  }
  return { url: config.url, envNames: [], headerNames: Object.keys(config.headers ?? {}), hash: launchHash(config), approved: true };
}

export class LaunchConsentError extends Error {
  /** Why it did not start, in a few words (the queue and the log show it). */
  readonly reason: string;

  /** `why`: more than "new or changed", such as limits a team policy does not cover. */
  constructor(
    readonly server: string,
    why?: string,
  ) {
    const reason = `its command line is new or changed${why ? ` (${why})` : ''}`;
    super(
      `Countersign has not started '${server}': ${reason}, and waits for your approval. ` +
        `Approve it in Countersign (it waits in the queue as "needs your approval to start"), or run: countersign servers approve ${server}. ` +
        'Then restart this server in your client.',
    );
    this.reason = reason;
  }
}
