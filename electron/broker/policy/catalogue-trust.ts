// The organization's catalogue at work: before a start the server's launch facts are gathered (content
// included) and the restrictions `onlyCatalogue` and `minimumLimits` may refuse it; each call asks
// whether it is "trusted by your organization" (a cheap, synchronous read of those facts against the
// managed policy now); each listing checks the reviewed definitions. Facts gathered for another launch
// (the command or limits changed since) count for nothing until the next start.
import type { CatalogueView, ServerConfig } from '../../../shared/api.js';
import { escapeControl as e } from '../../../shared/escape.js';
import { isLooser, NO_LIMITS, summarizeLimits } from '../../../shared/limits.js';
import type { ManagedPolicy } from '../../../shared/managed-policy-schema.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { Change } from '../audit/change-entry.js';
import { listingHash } from '../trust/definition-tracker.js';
import { launchHash } from '../trust/launch-consent.js';
import { gatherLaunchFacts, launchFactsNow, type FactsContext } from './catalogue-facts.js';
import { matchCatalogue, type CatalogueVerdict, type LaunchFacts } from './catalogue-match.js';
import type { ManagedPolicySource } from './managed-source.js';

export interface CatalogueDeps {
  managed: ManagedPolicySource;
  /** The person said "do not trust" this server: organization trust does not apply. */
  declined(server: string): boolean;
  record(change: Change): void;
  /** Organization trust changed: the screens refresh, and `connect`'s leases end (they may rest on it). */
  changed(): void;
  context(): Omit<FactsContext, 'spawned'>;
}

/** A start a managed restriction refuses. */
export class CatalogueRefusedError extends Error {}

export class CatalogueTrust {
  private readonly facts = new Map<string, { launch: string; facts: LaunchFacts }>();
  /** The last verdict logged per server, so the log has each change of organization trust once. */
  private readonly logged = new Map<string, string>();
  private readonly hashes = new WeakMap<ServerConfig, string>();

  constructor(private readonly deps: CatalogueDeps) {}

  /** The managed policy when it has a catalogue or a catalogue restriction; else nothing here applies. */
  policy(): ManagedPolicy | undefined {
    const state = this.deps.managed.current();
    if (state.kind !== 'loaded') return undefined;
    const p = state.policy;
    return p.catalogue.length || p.restrictions.onlyCatalogue || p.restrictions.minimumLimits ? p : undefined;
  }

  /** Before a start: gather what runs, and refuse it when a restriction says so (audited). */
  async beforeStart(server: string, config: ServerConfig, spawned?: ServerConfig): Promise<void> {
    const policy = this.policy();
    if (!policy) return;
    const gathered = await gatherLaunchFacts(server, config, { ...this.deps.context(), spawned });
    const launch = this.launchOf(config);
    // The same launch again: its last listing stands until the new session lists its tools.
    const before = this.facts.get(server);
    const facts = before?.launch === launch && before.facts.listingHash ? { ...gathered, listingHash: before.facts.listingHash } : gathered;
    this.facts.set(server, { launch, facts });
    const verdict = matchCatalogue(policy.catalogue, facts, { ignoreDefinitions: true });
    this.note(server, matchCatalogue(policy.catalogue, facts));
    const refused = restrictionRefusal(policy, verdict, config);
    if (!refused) return;
    const what = `Countersign will not start '${e(server)}': ${refused}.`;
    this.deps.record({ kind: 'launch', actor: 'policy', server, what, details: { verdict }, decision: 'deny' });
    throw new CatalogueRefusedError(what);
  }

  /** A complete listing: the reviewed definitions are checked against it. */
  onListing(server: string, config: ServerConfig | undefined, tools: ToolDefinition[]): void {
    const held = this.facts.get(server);
    if (!held || !config || held.launch !== this.launchOf(config)) return;
    held.facts = { ...held.facts, listingHash: listingHash(tools) };
    const policy = this.policy();
    if (policy) this.note(server, matchCatalogue(policy.catalogue, held.facts));
  }

  /** Per call: the catalogue entry that makes this server trusted by the organization, if any. */
  organizationTrust(server: string, config: ServerConfig | undefined): string | undefined {
    if (!config) return undefined;
    const policy = this.policy();
    const held = this.facts.get(server);
    if (!policy || !held || held.launch !== this.launchOf(config)) return undefined;
    const verdict = matchCatalogue(policy.catalogue, held.facts);
    return verdict.kind === 'trusted' && !this.deps.declined(server) ? verdict.entry : undefined;
  }

  /** What the Servers screen and `countersign servers` show. */
  view(server: string, config: ServerConfig): CatalogueView | undefined {
    const policy = this.policy();
    if (!policy) return undefined;
    const facts = this.currentFacts(server, config);
    const verdict = matchCatalogue(policy.catalogue, facts);
    // As at a start (definitions are checked later); before its content is checked, only from what is known.
    const refused = restrictionRefusal(policy, matchCatalogue(policy.catalogue, facts, { ignoreDefinitions: true, assumeContent: true }), config);
    return {
      state: verdict.kind,
      ...(verdict.kind !== 'none' ? { entry: verdict.entry } : {}),
      ...(verdict.kind === 'mismatch' ? { differences: verdict.differences } : {}),
      contentChecked: facts.contentChecked,
      ...(verdict.kind === 'trusted' && this.deps.declined(server) ? { declined: true } : {}),
      ...(refused ? { refused } : {}),
    };
  }

  forget(server: string): void {
    this.facts.delete(server);
    this.logged.delete(server);
  }

  private currentFacts(server: string, config: ServerConfig): LaunchFacts {
    const held = this.facts.get(server);
    return held && held.launch === this.launchOf(config) ? held.facts : launchFactsNow(server, config);
  }

  private launchOf(config: ServerConfig): string {
    let hash = this.hashes.get(config);
    if (hash === undefined) this.hashes.set(config, (hash = launchHash(config)));
    return hash;
  }

  /** Each change of organization trust is logged once, with what differs. */
  private note(server: string, verdict: CatalogueVerdict): void {
    const key = JSON.stringify(verdict);
    if (this.logged.get(server) === key) return;
    // Waiting for a listing is not a finding: the listing decides.
    if (verdict.kind === 'mismatch' && verdict.differences.every((d) => d.includes('not known yet'))) return;
    const first = !this.logged.has(server);
    this.logged.set(server, key);
    if (!first) this.deps.changed();
    if (verdict.kind === 'none') return;
    this.deps.record(
      verdict.kind === 'trusted'
        ? { kind: 'trust', actor: 'policy', server, what: `trusted by your organization: catalogue entry ${verdict.entry}`, details: { entry: verdict.entry } }
        : {
            kind: 'trust',
            actor: 'policy',
            server,
            what: `not trusted by your organization: it differs from catalogue entry ${verdict.entry}: ${verdict.differences.join('; ')}`,
            details: { entry: verdict.entry, differences: verdict.differences },
            decision: 'deny',
          },
    );
  }
}

/** Why `onlyCatalogue` or `minimumLimits` refuses a server that is not an exact catalogue match. */
export function restrictionRefusal(policy: ManagedPolicy, verdict: CatalogueVerdict, config: ServerConfig): string | undefined {
  if (verdict.kind === 'trusted') return undefined;
  const r = policy.restrictions;
  if (r.onlyCatalogue) {
    const why =
      verdict.kind === 'mismatch'
        ? `it differs from catalogue entry '${e(verdict.entry)}': ${verdict.differences.join('; ')}`
        : 'it matches no catalogue entry';
    return `your organization lets only the servers in its catalogue run (its reason: ${quoted(r.onlyCatalogue.reason)}), and ${why}`;
  }
  if (r.minimumLimits) {
    const min = r.minimumLimits.limits;
    const reason = `its reason: ${quoted(r.minimumLimits.reason)}`;
    if (!('command' in config)) {
      return isLooser(NO_LIMITS, min)
        ? `your organization requires servers outside its catalogue to run with ${summarizeLimits(min)} or tighter (${reason}), and a remote server cannot run under limits`
        : undefined;
    }
    const now = config.limits ?? NO_LIMITS;
    if (isLooser(now, min)) {
      return `your organization requires servers outside its catalogue to run with ${summarizeLimits(min)} or tighter (${reason}); it is set to run with ${summarizeLimits(now)}`;
    }
  }
  return undefined;
}

function quoted(text: string): string {
  return `"${e(text)}"`;
}
