// What the Servers and Changes screens show of trust, and the person's review of held changes.
import type { Actor, ServerConfig, ServerView, ToolView } from '../../../shared/api.js';
import { createHash } from 'node:crypto';
import { effectiveHints } from '../../../shared/annotations.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { ReviewAction, ServerChanges } from '../../../shared/trust-types.js';
import { heldChangeHash, listingHash } from './definition-tracker.js';
import { launchView } from './launch-consent.js';
import { serverMarks } from '../policy/managed-status.js';
import type { Listings, TrustFindings } from './trust-findings.js';
import type { TrustRecords } from './trust-records.js';
import type { IdentityRecord } from './trust-store.js';

export type TrustServerView = Omit<ServerView, 'name' | 'config' | 'trusted' | 'sessions' | 'lastError'> & { running: boolean };

export function serverView(
  t: TrustRecords,
  findings: TrustFindings,
  name: string,
  config: ServerConfig,
  tools: ToolDefinition[],
  listings: Listings,
): TrustServerView {
  const record = t.store.get(name);
  const launch = launchView(config, record);
  const blockedBy = t.blockReason(name, config);
  const pin = t.effectivePin(name);
  const held = Object.values(record.held).filter((h) => !h.rejected).length;
  const identity = t.identities.get(name) ?? record.identity;
  const toolViews: ToolView[] = tools.map((definition) => ({
    definition,
    hints: effectiveHints(definition),
    state: t.tracker.state(name, definition, definition.name),
    findings: findings.toolFindings(name, definition, listings),
  }));
  const quarantine = t.quarantined(name);
  // A launch the client fills in is approved value by value (from the queue): its stored form never runs,
  // so once a filled launch was approved the server does not wait for consent as a whole.
  const filled = 'command' in config && (config.fills?.length ?? 0) > 0;
  const catalogue = t.catalogue.view(name, config);
  const status =
    blockedBy || catalogue?.refused ? 'blocked' : quarantine.length ? 'quarantined' : !launch.approved && !(filled && record.launch) ? 'needs-consent' : 'idle';
  return {
    status,
    running: false,
    launch,
    pin: pin ? { ...pin } : undefined,
    quarantine: quarantine.length ? quarantine : undefined,
    pendingChanges: held,
    identity: identity ? { ...identity.serverInfo, protocolVersion: identity.protocolVersion } : undefined,
    findings: findings.serverFindings(name, identity?.serverInfo?.name),
    blockedBy,
    managed: serverMarks(t.managed, name, config),
    tools: toolViews,
    listingHash: tools.length ? listingHash(tools) : undefined,
    ...(catalogue ? { catalogue } : {}),
  };
}

export async function listChanges(t: TrustRecords, findings: TrustFindings, listings: Listings): Promise<ServerChanges[]> {
  // Loaded when changes are first shown: the word diff (the 'diff' package) is ~1 MB the broker
  // would otherwise hold from start to end.
  const { diffDefinitions, diffVersions } = await import('../../../shared/definition-diff.js');
  const out: ServerChanges[] = [];
  for (const server of Object.keys(t.opts.settings.listServers())) {
    const record = t.store.get(server);
    const current = t.identities.get(server);
    const version = record.identity && current ? diffVersions(record.identity.serverInfo?.version, current.serverInfo?.version) : undefined;
    const instructions =
      record.identity && current && record.identity.instructions !== current.instructions
        ? { from: record.identity.instructions, to: current.instructions }
        : undefined;
    const tools = Object.entries(record.held).map(([name, held]) => ({
      name,
      hash: heldChangeHash(record, name)!,
      kind: held.kind,
      diff: diffDefinitions(record.tools[name]?.definition, held.definition),
      findings: held.definition ? findings.toolFindings(server, held.definition, listings) : [],
      detectedAt: held.detectedAt,
      rejected: held.rejected,
    }));
    const identityHash = (version || instructions) && current ? identityFingerprint(current) : undefined;
    if (tools.length || version || instructions) out.push({ server, version, instructions, identityHash, tools });
  }
  return out;
}

export function review(t: TrustRecords, server: string, action: ReviewAction, only: string[] | undefined, actor: Actor, acceptIdentity = false): string[] {
  const decided = t.tracker.review(server, action, only, actor);
  const current = t.identities.get(server);
  if (action === 'accept' && acceptIdentity && current) {
    t.store.update(server, (r) => (r.identity = current));
    t.opts.record({
      kind: 'review',
      actor,
      server,
      what: 'identity accepted',
      details: { serverInfo: current.serverInfo, protocolVersion: current.protocolVersion },
    });
  }
  t.opts.emit({ type: 'servers-changed' });
  return decided;
}

/** What a person reviews of a server's changed identity (version, instructions). */
export function identityFingerprint(identity: IdentityRecord): string {
  return createHash('sha256').update(canonicalJson(identity)).digest('hex');
}
