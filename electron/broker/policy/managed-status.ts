// The managed policy as getStatus shows it, and the marks beside what it decides for each server
// ("managed by your organization" in the UI and CLI).
import type { ManagedStatus, ServerConfig } from '../../../shared/api.js';
import type { ManagedPolicySource } from './managed-source.js';
import { describeRestrictions } from './managed-restrictions.js';

export function managedStatus(source: ManagedPolicySource, personTimeout?: number): ManagedStatus {
  const s = source.current();
  const loc = source.location();
  const base = {
    path: loc.path,
    from: loc.from,
    ...(loc.overrideIgnored ? { overrideIgnored: loc.overrideIgnored } : {}),
    restrictions: [],
    block: [],
    alwaysAsk: [],
    servers: [],
  };
  switch (s.kind) {
    case 'none':
      return { state: 'none', ...base };
    case 'broken':
      return { ...base, state: 'broken', path: s.path, from: s.from, error: s.error };
    case 'ignored':
      return { ...base, state: 'ignored', path: s.path, from: s.from, why: s.why, fix: s.fix };
    case 'loaded':
      return {
        ...base,
        state: 'loaded',
        path: s.path,
        from: s.from,
        ...(s.profile ? { profile: s.profile } : {}),
        restrictions: describeRestrictions(s.policy.restrictions, personTimeout),
        block: [...s.policy.block],
        alwaysAsk: s.policy.alwaysAsk.map((r) => ({ ...r })),
        servers: Object.keys(s.policy.servers),
      };
  }
}

/** What the managed policy decides for one server, each line shown as "managed by your organization". */
export function serverMarks(source: ManagedPolicySource, server: string, config: ServerConfig | undefined): string[] | undefined {
  const s = source.current();
  if (s.kind === 'broken') return [`blocked: the managed policy cannot be read`];
  if (s.kind !== 'loaded') return undefined;
  const out: string[] = [];
  const blocked = source.blockReason(server, config);
  if (blocked) out.push(`blocked: ${blocked}`);
  const entry = source.serverEntry(server);
  if (entry?.command) out.push(`command reviewed: ${entry.command.join(' ')}`);
  if (entry?.limits) out.push('limits set');
  if (entry?.pin && (entry.pin.version || entry.pin.definitionsHash)) out.push(`pinned${entry.pin.version ? ` to ${entry.pin.version}` : ''}`);
  const asks = s.policy.alwaysAsk.filter((r) => r.server === server).map((r) => r.tool);
  if (asks.length) out.push(`always asks: ${asks.join(', ')}`);
  return out.length ? out : undefined;
}
