// An optional team policy file. It adds friction to a person's choices, never removes it: it blocks
// servers, forces "always ask" for tools, pins servers, and holds a server to the command and limits the
// team reviewed. A user policy (COUNTERSIGN_POLICY or the path the person set) never pre-approves a
// launch: the guarded agent may be able to write it. Only a policy source that says it may pre-approve
// (the managed policy, policy/managed-source.ts, through TrustRecords.preapproval) stands in for the person's launch consent (trust-manager.ts).
import fs from 'node:fs';
import { z } from 'zod';
import type { ServerConfig } from '../../../shared/api.js';
import { escapeControl } from '../../../shared/escape.js';
import { teamPolicySchema as policySchema, type TeamPolicy } from '../../../shared/managed-policy-schema.js';
import { isLooser, NO_LIMITS, summarizeLimits } from '../../../shared/limits.js';
import { FileVersion } from '../store/file-version.js';

export type { TeamPolicy };

export type PolicyState =
  | { kind: 'none' }
  | { kind: 'loaded'; path: string; policy: TeamPolicy }
  /** Fail closed: a policy that exists but cannot be read blocks every server until it is fixed. */
  | { kind: 'broken'; path: string; error: string };

export function parsePolicy(text: string): TeamPolicy {
  return policySchema.parse(JSON.parse(text));
}

export class TeamPolicySource {
  private cache?: { key: string; state: PolicyState };
  private version?: { path: string; file: FileVersion };

  /**
   * `mayPreapprove`: whether this source's `command` entries stand in for the person's launch consent.
   * False for a user policy file, always; the managed policy (managed-source.ts) pre-approves through TrustRecords.preapproval instead.
   */
  constructor(
    private readonly pathOf: () => string | undefined,
    private readonly warn: (text: string) => void,
    readonly mayPreapprove = false,
  ) {}

  current(): PolicyState {
    const path = this.pathOf();
    if (!path) return { kind: 'none' };
    // Asked on every call: a throttled stat, as for the settings and trust files.
    if (this.version?.path !== path) this.version = { path, file: new FileVersion(path) };
    const key = `${path}:${this.version.file.current() ?? 'missing'}`;
    if (this.cache?.key === key) return this.cache.state;
    try {
      this.remember(key, { kind: 'loaded', path, policy: parsePolicy(fs.readFileSync(path, 'utf8')) });
    } catch (err) {
      const first = err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (err as Error).message;
      this.remember(key, { kind: 'broken', path, error: first });
    }
    return this.cache!.state;
  }

  private remember(key: string, state: PolicyState): void {
    this.cache = { key, state };
    if (state.kind === 'broken') {
      this.warn(`The team policy file ${state.path} could not be read (${state.error}). Until it is fixed, every server is blocked.`);
    }
  }

  /** Why the server may not start or run, given its config: blocked, or not the command and limits the team reviewed. */
  blockReason(server: string, config?: ServerConfig): string | undefined {
    const s = this.current();
    if (s.kind === 'broken') return `the team policy file ${s.path} could not be read`;
    if (s.kind !== 'loaded') return undefined;
    return policyBlockReason(s.policy, `the team policy (${s.path})`, server, config);
  }

  alwaysAsk(server: string, tool: string): boolean {
    const s = this.current();
    return s.kind === 'loaded' && s.policy.alwaysAsk.some((r) => r.server === server && (r.tool === tool || r.tool === '*'));
  }

  serverEntry(server: string): TeamPolicy['servers'][string] | undefined {
    const s = this.current();
    return s.kind === 'loaded' && Object.hasOwn(s.policy.servers, server) ? s.policy.servers[server] : undefined;
  }

  /** The entry whose `command` may stand in for the person's launch consent: none from a user policy. */
  preapproval(server: string): TeamPolicy['servers'][string] | undefined {
    return this.mayPreapprove ? this.serverEntry(server) : undefined;
  }
}

export function sameArgv(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** What a policy's block list and reviewed commands and limits say of a server; `by` names the policy. */
export function policyBlockReason(policy: TeamPolicy, by: string, server: string, config?: ServerConfig): string | undefined {
  const name = escapeControl(server);
  if (policy.block.includes(server)) return `${by} blocks '${name}'`;
  const entry = Object.hasOwn(policy.servers, server) ? policy.servers[server] : undefined;
  if (!entry || !config) return undefined;
  if (entry.command) {
    const argv = 'command' in config ? [config.command, ...(config.args ?? [])] : undefined;
    if (!argv || !sameArgv(entry.command, argv)) {
      const now = argv ? argv.map((a) => escapeControl(a)).join(' ') : `the remote server ${escapeControl('url' in config ? config.url : '')}`;
      return `${by} allows '${name}' only as ${entry.command.map((a) => escapeControl(a)).join(' ')}; it is set to run ${now}`;
    }
  }
  if (entry.limits && 'command' in config && isLooser(config.limits ?? NO_LIMITS, entry.limits)) {
    return `${by} allows '${name}' only with these limits or tighter: ${summarizeLimits(entry.limits)}; it is set to run with ${summarizeLimits(config.limits ?? NO_LIMITS)}`;
  }
  return undefined;
}
