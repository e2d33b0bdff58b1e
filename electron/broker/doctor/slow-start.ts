// How long each server took to answer its first message (`initialize`, or `server/discover` in the
// 2026-07-28 revision), and, past 10 s, what usually causes it. A client with the SDK's 60 s timeout
// gives up on a slow start and says nothing about why: the Servers entry and `doctor` do.
import type { ServerConfig, SlowStart } from '../../../shared/api.js';
import { defaultNetworkEnv, NETWORK_ENV } from '../../../shared/network-env.js';
import { monotonicMs } from '../core/clock.js';

export const SLOW_START_MS = 10_000;

const PACKAGE_RUNNERS = /^(npx|bunx|pnpx)(\.cmd|\.exe)?$/i;
const RUNNER_VERBS: Record<string, string[]> = { npm: ['exec', 'x'], pnpm: ['dlx'], yarn: ['dlx'], bun: ['x'] };

export class StartTimes {
  readonly #last = new Map<string, { ms: number; at: string }>();

  /** `clock`: the duration clock (core/clock.ts), or a test's. */
  constructor(private readonly clock: () => number = monotonicMs) {}

  /** At a session's start: the function that, called on its first answer, gives the time it took. */
  begin(): () => number {
    const start = this.clock();
    return () => Math.round(this.clock() - start);
  }

  /** True when the note on the server changed (it became slow, or is no longer). */
  record(server: string, ms: number): boolean {
    const was = this.slow(server);
    this.#last.set(server, { ms, at: new Date().toISOString() });
    return was !== ms > SLOW_START_MS;
  }

  slow(server: string): boolean {
    return (this.#last.get(server)?.ms ?? 0) > SLOW_START_MS;
  }

  forget(server: string): void {
    this.#last.delete(server);
  }

  /** The note for a server whose last start took more than 10 s; undefined otherwise. */
  note(server: string, config: ServerConfig, env: NodeJS.ProcessEnv): SlowStart | undefined {
    const last = this.#last.get(server);
    if (!last || last.ms <= SLOW_START_MS) return undefined;
    return { ms: last.ms, at: last.at, causes: slowStartCauses(server, config, env) };
  }
}

function basename(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

/** npx, `npm exec`, `pnpm dlx`…: the package is fetched when the server starts. */
export function fetchesPackage(command: string, args: readonly string[] = []): boolean {
  const name = basename(command)
    .toLowerCase()
    .replace(/\.(cmd|exe)$/, '');
  return PACKAGE_RUNNERS.test(basename(command)) || (RUNNER_VERBS[name]?.includes(args[0] ?? '') ?? false);
}

/**
 * What usually makes a start slow, most likely first, from its command and the environment servers
 * inherit. Names of variables only: a proxy URL can hold a password.
 */
export function slowStartCauses(server: string, config: ServerConfig, env: NodeJS.ProcessEnv): string[] {
  if (!('command' in config)) return ['the remote server answered slowly: its host, the network or a proxy between'];
  const causes: string[] = [];
  const name = basename(config.command).toLowerCase();
  const passed = new Set(defaultNetworkEnv(config.limits?.noPassEnv));
  for (const n of config.limits?.passEnv ?? []) passed.add(n);
  const set = (kind: 'ca' | 'proxy') => NETWORK_ENV.filter((v) => v.kind === kind && env[v.name]).map((v) => v.name);
  const taken = (names: string[]) => names.filter((n) => !passed.has(n));
  if (fetchesPackage(config.command, config.args)) {
    causes.push(
      `${name} downloads the package and its dependencies before the server runs: slow on a first start, with a cold npm cache, or on every start of an unpinned or @latest version (pin it: countersign servers pin ${server})`,
    );
  } else if (/^(uvx|pipx|uv)(\.exe)?$/.test(name)) {
    causes.push(`${name} builds an environment and downloads the package before the server runs (slow on a first start)`);
  } else if (/^(docker|podman)(\.exe)?$/.test(name)) {
    causes.push(`${name} pulls the image before the server runs (slow on a first start or a new tag)`);
  }
  if (config.limits && fetchesPackage(config.command, config.args)) causes.push('under limits its package is installed before the sandbox on its first start');
  const ca = set('ca');
  if (!ca.length) {
    causes.push(
      "if your network inspects TLS (a company proxy or security software), downloads fail their certificate check and are retried: set NODE_EXTRA_CA_CERTS (and SSL_CERT_FILE for Python tools) to your company's CA file where Countersign starts; servers get it",
    );
  } else if (taken(ca).length) {
    causes.push(`its limits keep ${taken(ca).join(', ')} from it (--no-pass-env): give them back with countersign servers limits ${server} --network-env`);
  }
  const proxy = set('proxy');
  if (proxy.length && taken(proxy).length)
    causes.push(`its limits keep the proxy variables (${taken(proxy).join(', ')}) from it, so it tries to reach the network directly`);
  else if (proxy.length) causes.push(`a proxy is set (${proxy.join(', ')}): a slow or unreachable proxy delays every download`);
  causes.push('the server itself works before it answers (loading a model, indexing files)');
  return causes;
}
