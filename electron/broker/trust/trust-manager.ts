// Trust you can check: what was approved is recorded, changes are held for review, pins quarantine a
// server that drifts, commands wait for consent, and the team policy adds friction. The broker asks
// this module before starting a server and before deciding a call. Each concept is in its own file;
// this class is their one entry point:
//   trust-records.ts    the state (records, definitions, policy, identities, quarantines)
//   launch-approval.ts  before a server starts
//   session-records.ts  what running sessions report (identity, listings, first approval, trust)
//   call-view.ts        what deciding a call reads (calls/gate-facts.ts)
//   trust-findings.ts   scans of servers, tools and arguments
//   trust-views.ts      the Servers and Changes screens, and review
//   pins.ts             pins and the package check
import type { Actor, CatalogueView, ServerConfig } from '../../../shared/api.js';
import type { Finding } from '../../../shared/findings.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { PinView, ReviewAction, ServerChanges } from '../../../shared/trust-types.js';
import type { DefinitionTracker } from './definition-tracker.js';
import { approveLaunch, assertCanStart, carryLaunchApproval } from './launch-approval.js';
import { callView, type CallTrust } from './call-view.js';
import { pin, prepareLaunch, unpin } from './pins.js';
import { forgetLimitsBaseline } from '../policy/policy-limits.js';
import { withdrawWithoutLimits } from './run-without-limits.js';
import { onInitialized, onListing, onPersonApproved, onTrust } from './session-records.js';
import type { TeamPolicySource } from '../policy/team-policy.js';
import { TrustFindings, type Listings } from './trust-findings.js';
import type { ManagedPolicySource } from '../policy/managed-source.js';
import { TrustRecords, type TrustManagerOptions } from './trust-records.js';
import type { IdentityRecord, TrustStore } from './trust-store.js';
import { listChanges, review, serverView, type TrustServerView } from './trust-views.js';

export type { TrustManagerOptions } from './trust-records.js';
export { BlockedServerError } from './launch-approval.js';
export { PackageRefusedError } from './pins.js';
export { CatalogueRefusedError } from '../policy/catalogue-trust.js';
export { identityFingerprint } from './trust-views.js';

export class TrustManager {
  private readonly t: TrustRecords;
  private readonly findings: TrustFindings;

  constructor(opts: TrustManagerOptions) {
    this.t = new TrustRecords(opts);
    this.findings = new TrustFindings(this.t);
  }

  get store(): TrustStore {
    return this.t.store;
  }

  get tracker(): DefinitionTracker {
    return this.t.tracker;
  }

  get policy(): TeamPolicySource {
    return this.t.policy;
  }

  /** The organization's managed policy (outranks the team policy and the person's settings). */
  get managed(): ManagedPolicySource {
    return this.t.managed;
  }

  // ---- before a server starts ----

  assertCanStart(name: string, config: ServerConfig): void {
    assertCanStart(this.t, name, config);
  }

  approveLaunch(name: string, config: ServerConfig, actor: Actor): void {
    approveLaunch(this.t, name, config, actor);
  }

  /** The organization's catalogue: what runs is checked, and a managed restriction may refuse it. */
  beforeStart(name: string, config: ServerConfig, spawned?: ServerConfig): Promise<void> {
    return this.t.catalogue.beforeStart(name, config, spawned);
  }

  carryLaunchApproval(name: string, before: ServerConfig, after: ServerConfig): boolean {
    return carryLaunchApproval(this.t, name, before, after);
  }

  // ---- as sessions run ----

  onInitialized(server: string, result: Record<string, unknown>): void {
    onInitialized(this.t, server, result);
  }

  onListing(server: string, tools: ToolDefinition[]): void {
    this.findings.listingChanged();
    onListing(this.t, server, tools);
  }

  filterForClient(server: string, tools: ToolDefinition[]): ToolDefinition[] | undefined {
    return this.t.tracker.filterForClient(server, tools);
  }

  onPersonApproved(server: string, tools: ToolDefinition[] | undefined): void {
    onPersonApproved(this.t, server, tools);
  }

  onTrust(server: string, trusted: boolean, tools: ToolDefinition[] | undefined, actor: Actor, details: Record<string, unknown> = {}): void {
    onTrust(this.t, server, trusted, tools, actor, details);
  }

  // ---- deciding a call ----

  /** Everything deciding a call reads of trust, in one read. */
  callView(server: string, tool: ToolDefinition | undefined, name: string): CallTrust {
    return callView(this.t, server, tool, name);
  }

  identityOf(server: string): IdentityRecord | undefined {
    return this.t.identities.get(server);
  }

  // ---- findings ----

  callFindings(
    server: string,
    tool: ToolDefinition | undefined,
    args: unknown,
    listings: Listings,
  ): Promise<{ identity: Finding[]; tool: Finding[]; arguments: Finding[] }> {
    return this.findings.callFindings(server, tool, args, listings);
  }

  // ---- views and review ----

  serverView(name: string, config: ServerConfig, tools: ToolDefinition[], listings: Listings): TrustServerView {
    return serverView(this.t, this.findings, name, config, tools, listings);
  }

  /** How the server stands with the organization's catalogue (undefined without one). */
  catalogueView(name: string, config: ServerConfig): CatalogueView | undefined {
    return this.t.catalogue.view(name, config);
  }

  listChanges(listings: Listings): Promise<ServerChanges[]> {
    return listChanges(this.t, this.findings, listings);
  }

  review(server: string, action: ReviewAction, only: string[] | undefined, actor: Actor, acceptIdentity = false): string[] {
    return review(this.t, server, action, only, actor, acceptIdentity);
  }

  // ---- pins ----

  pin(
    server: string,
    config: ServerConfig,
    tools: ToolDefinition[],
    actor: Actor,
    stillCurrent?: () => void,
  ): Promise<{ pin: PinView; config?: ServerConfig }> {
    return pin(this.t, server, config, tools, actor, stillCurrent);
  }

  prepareLaunch(server: string, config: ServerConfig): Promise<ServerConfig> {
    return prepareLaunch(this.t, server, config);
  }

  unpin(server: string, actor: Actor): void {
    unpin(this.t, server, actor);
  }

  forget(server: string): void {
    this.t.store.forget(server);
    forgetLimitsBaseline(this.t.opts.seal, server);
    if (this.t.opts.seal) withdrawWithoutLimits(this.t.opts.seal, server);
    this.t.identities.delete(server);
    this.t.catalogue.forget(server);
  }
}
