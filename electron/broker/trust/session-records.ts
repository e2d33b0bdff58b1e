// What running sessions tell trust: a server's identity at initialize and its tool listings (checked
// against the pins), and the moments its state is first recorded (first approval, trust).
import type { Actor } from '../../../shared/api.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { listingHash } from './definition-tracker.js';
import type { TrustRecords } from './trust-records.js';
import type { IdentityRecord } from './trust-store.js';

export function onInitialized(t: TrustRecords, server: string, result: Record<string, unknown>): void {
  const info = result.serverInfo as { name?: unknown; title?: unknown; version?: unknown } | undefined;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const identity: IdentityRecord = {
    serverInfo: info ? { name: str(info.name), title: str(info.title), version: str(info.version) } : undefined,
    protocolVersion: str(result.protocolVersion),
    instructions: str(result.instructions),
  };
  t.identities.set(server, identity);
  const record = t.store.get(server);
  if (t.tracker.hasRecord(server) && !record.identity)
    t.saveOrWarn(`the identity of '${server}'`, () => t.store.update(server, (r) => (r.identity = identity)));
  for (const pin of t.pinsOf(server)) {
    if (pin.version !== undefined && identity.serverInfo?.version !== pin.version) {
      t.quarantine(
        server,
        `it reports version ${identity.serverInfo?.version ?? '(none)'}, but is pinned to ${pin.version}${pin.by === 'policy' ? ' by the team policy' : ''}`,
      );
    }
  }
}

export function onListing(t: TrustRecords, server: string, tools: ToolDefinition[]): void {
  // Unsaved, a changed definition is still held: its state is computed from the listing each time.
  t.saveOrWarn(`the tool listing of '${server}'`, () => t.tracker.onListing(server, tools));
  t.catalogue.onListing(server, t.opts.settings.getServer(server), tools);
  // Trusted by the organization, its definitions are recorded as the person's trust records them: a later change is held for review.
  if (!t.tracker.hasRecord(server) && t.catalogue.organizationTrust(server, t.opts.settings.getServer(server))) {
    t.saveOrWarn(`what '${server}' looked like when your organization's trust applied`, () => recordNow(t, server, tools));
  }
  for (const pin of t.pinsOf(server)) {
    if (pin.definitionsHash && listingHash(tools) !== pin.definitionsHash) {
      t.quarantine(server, `its tool definitions differ from the pinned ones${pin.by === 'policy' ? ' (pinned by the team policy)' : ''}`);
    }
  }
}

/** A person approved a call: the first approval records what the server looked like then. */
export function onPersonApproved(t: TrustRecords, server: string, tools: ToolDefinition[] | undefined): void {
  if (!t.tracker.hasRecord(server)) t.saveOrWarn(`what '${server}' looked like when you first approved a call`, () => recordNow(t, server, tools));
}

export function onTrust(
  t: TrustRecords,
  server: string,
  trusted: boolean,
  tools: ToolDefinition[] | undefined,
  actor: Actor,
  details: Record<string, unknown> = {},
): void {
  if (trusted && !t.tracker.hasRecord(server)) recordNow(t, server, tools);
  // A person's "do not trust" outranks the organization's trust; trusting again lifts it.
  if (trusted === (t.store.get(server).declined === true)) {
    t.store.update(server, (r) => {
      if (trusted) delete r.declined;
      else r.declined = true;
    });
  }
  t.opts.record({
    kind: 'trust',
    actor,
    server,
    what: trusted ? 'server trusted' : 'server untrusted',
    details: { trusted, ...details },
    decision: trusted ? 'allow' : 'deny',
  });
}

function recordNow(t: TrustRecords, server: string, tools: ToolDefinition[] | undefined): void {
  t.tracker.recordAll(server, tools);
  const identity = t.identities.get(server);
  if (identity) t.store.update(server, (r) => (r.identity = identity));
}
