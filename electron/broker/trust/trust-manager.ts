// Trust you can check: what was approved is recorded, changes are held for review, pins quarantine a
// server that drifts, commands wait for consent, and the team policy adds friction. The broker asks
// this module before starting a server and before deciding a call.
import type { Actor, BrokerEvent, ServerConfig, ServerView, ToolView } from '../../../shared/api.js';
import { createHash } from 'node:crypto';
import { effectiveHints } from '../../../shared/annotations.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { ReasonCode } from '../../../shared/decision.js';
import type { Finding } from '../../../shared/findings.js';
import { scanTool, findShadowing, type ServerTools } from '../checks/scan/index.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { PinView, ReviewAction, ServerChanges } from '../../../shared/trust-types.js';
import { scanArguments } from '../checks/argument-checks.js';
import { escapeControl } from '../../../shared/escape.js';
import { confusableFindings, identityFindings, nameShapeFindings, skeletonsOf } from './name-checks.js';
import { isPerson, type Change } from '../audit/change-entry.js';
import type { SettingsStore } from '../store/settings-store.js';
import { DefinitionTracker, heldChangeHash, listingHash } from './definition-tracker.js';
import { isStdio, launchApproved, launchHash, LaunchConsentError, launchView } from './launch-consent.js';
import { checkPinnedLaunch, defaultNode, type PackageContext } from './packages/package-check.js';
import { npxCacheDir } from './packages/npx-resolution.js';
import { pinPackage } from './pin-package.js';
import { forgetLimitsBaseline, policyLimitsRefusal, sealLimitsBaseline } from './policy-limits.js';
import { withdrawWithoutLimits } from './run-without-limits.js';
import { sameArgv, TeamPolicySource } from './team-policy.js';
import { TrustStore, type IdentityRecord, type PinRecord } from './trust-store.js';
import type { GrantSeal } from '../store/grant-seal.js';
import type { VersionResolver } from './version-resolver.js';

export interface TrustManagerOptions {
  dataDir: string;
  settings: SettingsStore;
  /** Writes a change of state to the audit log. */
  record(change: Change): void;
  emit(event: BrokerEvent): void;
  warn(text: string): void;
  /** The user policy file in effect (trust/policy-path.ts). */
  policyPath(): string | undefined;
  /**
   * Whether that policy's `command` entries stand in for the person's launch consent. Never for a user
   * policy: this is the seam a managed policy (a later issue) will use.
   */
  policyMayPreapprove?: boolean;
  resolver?: VersionResolver;
  /** npm's `_npx` cache folder (tests use their own). */
  npxCache?: string;
  /** Packages prepared for servers under limits (checked against a content pin like npx's copies). */
  prepared?: PackageContext['prepared'];
  /** Launch consent counts only when sealed (store/grant-seal.ts). */
  seal?: GrantSeal;
}

export class BlockedServerError extends Error {}

/** A pinned package could not be checked, or is not the pinned content: it does not start. */
export class PackageRefusedError extends Error {}

export class TrustManager {
  readonly store: TrustStore;
  readonly tracker: DefinitionTracker;
  readonly policy: TeamPolicySource;
  /** What each server said about itself at its last initialize. */
  private readonly identities = new Map<string, IdentityRecord>();
  /** Findings depend on the tool and on every server's listing: cached until any listing changes. */
  private readonly findingsCache = new WeakMap<ToolDefinition, { generation: number; server: string; findings: Finding[] }>();
  private listingGeneration = 0;
  /** Quarantines the disk would not take: they hold in memory all the same. */
  private readonly unsavedQuarantine = new Map<string, string[]>();
  private readonly diskWarned = new Set<string>();

  constructor(private readonly opts: TrustManagerOptions) {
    this.store = TrustStore.open(opts.dataDir, (text) => this.recordsLost(text), opts.seal);
    this.policy = new TeamPolicySource(opts.policyPath, opts.warn, opts.policyMayPreapprove ?? false);
    this.tracker = new DefinitionTracker(this.store, {
      note: (server, tool, what, details, actor) => opts.record({ kind: 'review', actor, server, tool, what, details, decision: what === 'change rejected' ? 'deny' : 'allow' }),
      changesDetected: (server) => {
        opts.emit({ type: 'changes-detected', server });
        opts.emit({ type: 'servers-changed' });
      },
    });
  }

  /**
   * Records kept as sessions run (identity, listings, first approvals) must not take a session down
   * when the disk refuses them (read-only, full, the folder gone): the call goes on, decided from what
   * is known, and the status says what was not saved. Anything else is a bug and is thrown.
   */
  private saveOrWarn(what: string, save: () => void): boolean {
    try {
      save();
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (typeof code !== 'string' && (error as Error).name !== 'SafeModeError') throw error;
      if (!this.diskWarned.has(what)) {
        this.diskWarned.add(what);
        this.opts.warn(`Countersign could not save ${what}: ${(error as Error).message}. It goes on without saving it; calls are still decided as before.`);
      }
      return false;
    }
  }

  /** Without the records, holds and pins cannot be checked: fail closed by untrusting every server. */
  private recordsLost(text: string): void {
    const settings = this.opts.settings;
    const trusted = Object.keys(settings.listServers()).filter((s) => settings.isTrusted(s));
    for (const s of trusted) {
      settings.setTrusted(s, false);
      this.opts.record({ kind: 'trust', actor: 'countersign', server: s, what: 'trust withdrawn: the trust records could not be read', details: { trusted: false }, decision: 'deny' });
    }
    this.opts.warn(trusted.length ? `${text} Trust was withdrawn from: ${trusted.join(', ')}.` : text);
  }

  // ---- before a server starts ----

  assertCanStart(name: string, config: ServerConfig): void {
    const blocked = this.policy.blockReason(name, config);
    if (blocked) throw new BlockedServerError(`Countersign will not start '${name}': ${blocked}.`);
    const unsafe = this.opts.seal?.unsafe();
    if (unsafe) throw new BlockedServerError(`Countersign will not start '${name}'. ${unsafe}`);
    const record = this.store.get(name);
    const { seal } = this.opts;
    if (launchApproved(config, record)) {
      // Launches approved before baselines were sealed: the approved limits become the baseline now.
      if (isStdio(config) && seal && !seal.limitsBaseline(name)) this.saveOrWarn(`the approved limits of '${name}'`, () => sealLimitsBaseline(seal, name, config));
      return;
    }
    // Only a policy source that may pre-approve (never a user policy file) stands in for the person.
    const entry = this.policy.preapproval(name);
    // The team reviewed this exact command: its approval stands in for the person's, within limits.
    if (isStdio(config) && entry?.command && sameArgv(entry.command, [config.command, ...(config.args ?? [])])) {
      const refused = policyLimitsRefusal(name, config, entry.limits, seal);
      if (refused) throw new LaunchConsentError(name, refused);
      // The baseline first: a failed write then leaves the launch unapproved, never approved without it.
      sealLimitsBaseline(seal, name, config);
      this.store.update(name, (r) => (r.launch = { hash: launchHash(config), approvedAt: new Date().toISOString(), by: 'policy' }));
      this.opts.record({ kind: 'launch', actor: 'policy', server: name, what: 'command approved by the team policy', details: launchView(config, record) });
      return;
    }
    throw new LaunchConsentError(name);
  }

  approveLaunch(name: string, config: ServerConfig, actor: Actor): void {
    if (isStdio(config)) sealLimitsBaseline(this.opts.seal, name, config);
    this.store.update(name, (r) => (r.launch = { hash: launchHash(config), approvedAt: new Date().toISOString(), by: isPerson(actor) ? 'person' : 'policy' }));
    this.opts.record({ kind: 'launch', actor, server: name, what: 'command line approved', details: launchView(config, this.store.get(name)) });
  }

  /**
   * Tighter limits take away, so a launch approved before stays approved with them: the approval moves
   * to the new hash. Nothing moves when the old launch was not approved.
   */
  carryLaunchApproval(name: string, before: ServerConfig, after: ServerConfig): boolean {
    const record = this.store.get(name);
    if (!launchApproved(before, record) || !record.launch) return false;
    const by = record.launch.by;
    if (isStdio(after)) sealLimitsBaseline(this.opts.seal, name, after);
    this.store.update(name, (r) => (r.launch = { hash: launchHash(after), approvedAt: new Date().toISOString(), by }));
    return true;
  }

  // ---- as sessions run ----

  onInitialized(server: string, result: Record<string, unknown>): void {
    const info = result.serverInfo as { name?: unknown; title?: unknown; version?: unknown } | undefined;
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    const identity: IdentityRecord = {
      serverInfo: info ? { name: str(info.name), title: str(info.title), version: str(info.version) } : undefined,
      protocolVersion: str(result.protocolVersion),
      instructions: str(result.instructions),
    };
    this.identities.set(server, identity);
    const record = this.store.get(server);
    if (this.tracker.hasRecord(server) && !record.identity) this.saveOrWarn(`the identity of '${server}'`, () => this.store.update(server, (r) => (r.identity = identity)));
    for (const pin of this.pinsOf(server)) {
      if (pin.version !== undefined && identity.serverInfo?.version !== pin.version) {
        this.quarantine(server, `it reports version ${identity.serverInfo?.version ?? '(none)'}, but is pinned to ${pin.version}${pin.by === 'policy' ? ' by the team policy' : ''}`);
      }
    }
  }

  onListing(server: string, tools: ToolDefinition[]): void {
    this.listingGeneration += 1;
    // Unsaved, a changed definition is still held: its state is computed from the listing each time.
    this.saveOrWarn(`the tool listing of '${server}'`, () => this.tracker.onListing(server, tools));
    for (const pin of this.pinsOf(server)) {
      if (pin.definitionsHash && listingHash(tools) !== pin.definitionsHash) {
        this.quarantine(server, `its tool definitions differ from the pinned ones${pin.by === 'policy' ? ' (pinned by the team policy)' : ''}`);
      }
    }
  }

  filterForClient(server: string, tools: ToolDefinition[]): ToolDefinition[] | undefined {
    return this.tracker.filterForClient(server, tools);
  }

  private quarantined(server: string): string[] {
    return [...(this.store.get(server).quarantine ?? []), ...(this.unsavedQuarantine.get(server) ?? [])];
  }

  private quarantine(server: string, why: string): void {
    const current = this.quarantined(server);
    if (current.includes(why)) return;
    const saved = this.saveOrWarn(`the quarantine of '${server}'`, () => this.store.update(server, (r) => (r.quarantine = [...(r.quarantine ?? []), why])));
    // Not saved, it holds in this process all the same.
    if (!saved) this.unsavedQuarantine.set(server, [...(this.unsavedQuarantine.get(server) ?? []), why]);
    this.opts.record({ kind: 'pin', actor: 'countersign', server, what: `quarantined: ${why}`, details: { reasons: [...current, why] }, decision: 'deny' });
    this.opts.emit({ type: 'servers-changed' });
  }

  /** Why a call to this tool may not even be decided: blocked, quarantined or held for review. */
  callBlock(server: string, tool: ToolDefinition | undefined, name: string): { code: ReasonCode; message: string } | undefined {
    const blocked = this.policy.blockReason(server, this.opts.settings.getServer(server));
    if (blocked) return { code: 'blocked-by-policy', message: `Countersign refused this call: ${blocked}.` };
    const quarantine = this.quarantined(server);
    if (quarantine.length) {
      return {
        code: 'quarantined',
        message: `Countersign refused this call: '${server}' is quarantined because ${quarantine.join('; ')}. Nothing runs until the person re-pins or unpins it in Countersign.`,
      };
    }
    if (this.tracker.state(server, tool, name) === 'held') {
      return {
        code: 'held-for-review',
        message: `Countersign refused this call: the definition of '${name}' changed (or is new) and waits for the person's review in Countersign. It was not run.`,
      };
    }
    return undefined;
  }

  forceAsk(server: string, tool: string): boolean {
    return this.policy.alwaysAsk(server, tool);
  }

  /** A person approved a call: the first approval records what the server looked like then. */
  onPersonApproved(server: string, tools: ToolDefinition[] | undefined): void {
    if (!this.tracker.hasRecord(server)) this.saveOrWarn(`what '${server}' looked like when you first approved a call`, () => this.recordNow(server, tools));
  }

  onTrust(server: string, trusted: boolean, tools: ToolDefinition[] | undefined, actor: Actor, details: Record<string, unknown> = {}): void {
    if (trusted && !this.tracker.hasRecord(server)) this.recordNow(server, tools);
    this.opts.record({ kind: 'trust', actor, server, what: trusted ? 'server trusted' : 'server untrusted', details: { trusted, ...details }, decision: trusted ? 'allow' : 'deny' });
  }

  private recordNow(server: string, tools: ToolDefinition[] | undefined): void {
    this.tracker.recordAll(server, tools);
    const identity = this.identities.get(server);
    if (identity) this.store.update(server, (r) => (r.identity = identity));
  }

  // ---- findings ----

  private otherServers(server: string, listings: Map<string, ToolDefinition[]>): ServerTools[] {
    return [...listings].filter(([s]) => s !== server).map(([s, tools]) => ({ server: s, tools: tools.map((t) => t.name) }));
  }

  toolFindings(server: string, tool: ToolDefinition, listings: Map<string, ToolDefinition[]>): Finding[] {
    const cached = this.findingsCache.get(tool);
    if (cached?.generation === this.listingGeneration && cached.server === server) return cached.findings;
    const findings = this.scanToolAmong(server, tool, listings);
    this.findingsCache.set(tool, { generation: this.listingGeneration, server, findings });
    return findings;
  }

  private scanToolAmong(server: string, tool: ToolDefinition, listings: Map<string, ToolDefinition[]>): Finding[] {
    const findings = scanTool(tool, { otherServers: this.otherServers(server, listings) });
    findings.push(...nameShapeFindings(tool.name, 'tool'), ...confusableFindings(server, tool.name, listings));
    for (const shadow of findShadowing([...listings].map(([s, tools]) => ({ server: s, tools: tools.map((t) => t.name) })))) {
      if (!shadow.servers.some((x) => x.server === server && x.tool === tool.name)) continue;
      const others = shadow.servers.filter((x) => x.server !== server).map((x) => `'${x.server}'`).join(', ');
      findings.push({
        code: 'cross-server-reference',
        severity: shadow.lookalike ? 'danger' : 'warning',
        message: `${shadow.lookalike ? 'A look-alike of this tool name' : 'The same tool name'} is also offered by ${others}: the model may call the wrong one.`,
        excerpt: shadow.servers.map((x) => `${x.server}/${x.tool}`).join(', '),
      });
    }
    return findings;
  }

  /** Scans the arguments' strings; long texts are scanned in slices that let the event loop run. */
  argumentFindings(server: string, args: unknown, listings: Map<string, ToolDefinition[]>): Promise<Finding[]> {
    return scanArguments(args, this.otherServers(server, listings));
  }

  /** What the Servers screen says about the server itself, for the cards of its calls too. */
  identityFindingsOf(name: string): Finding[] {
    return this.serverFindings(name, (this.identities.get(name) ?? this.store.get(name).identity)?.serverInfo?.name) ?? [];
  }

  /** About the server itself: the name it claims, and an id that looks like another server's. */
  private serverFindings(name: string, claimed: string | undefined): Finding[] | undefined {
    const servers = this.opts.settings.listServers();
    const findings = identityFindings(name, claimed, servers);
    const keys = new Set(skeletonsOf(name));
    const alike = Object.keys(servers).filter((id) => id !== name && skeletonsOf(id).some((k) => keys.has(k)));
    if (alike.length) {
      findings.push({
        code: 'confusable-name', severity: 'warning', field: 'name',
        message: `The server id '${escapeControl(name)}' looks like ${alike.map((a) => `'${escapeControl(a)}'`).join(', ')}: make sure each is the server you mean.`,
        excerpt: alike.map((a) => escapeControl(a)).join(', '),
      });
    }
    return findings.length ? findings : undefined;
  }

  // ---- views and review ----

  serverView(name: string, config: ServerConfig, tools: ToolDefinition[], listings: Map<string, ToolDefinition[]>): Omit<ServerView, 'name' | 'config' | 'trusted' | 'sessions' | 'lastError'> & { running: boolean } {
    const record = this.store.get(name);
    const launch = launchView(config, record);
    const blockedBy = this.policy.blockReason(name, config);
    const pin = this.effectivePin(name);
    const held = Object.values(record.held).filter((h) => !h.rejected).length;
    const identity = this.identities.get(name) ?? record.identity;
    const toolViews: ToolView[] = tools.map((definition) => ({
      definition,
      hints: effectiveHints(definition),
      state: this.tracker.state(name, definition, definition.name),
      findings: this.toolFindings(name, definition, listings),
    }));
    const quarantine = this.quarantined(name);
    const status = blockedBy ? 'blocked' : quarantine.length ? 'quarantined' : !launch.approved ? 'needs-consent' : 'idle';
    return {
      status,
      running: false,
      launch,
      pin: pin ? { ...pin } : undefined,
      quarantine: quarantine.length ? quarantine : undefined,
      pendingChanges: held,
      identity: identity ? { ...identity.serverInfo, protocolVersion: identity.protocolVersion } : undefined,
      findings: this.serverFindings(name, identity?.serverInfo?.name),
      blockedBy,
      tools: toolViews,
      listingHash: tools.length ? listingHash(tools) : undefined,
    };
  }

  async listChanges(listings: Map<string, ToolDefinition[]>): Promise<ServerChanges[]> {
    // Loaded when changes are first shown: the word diff (the 'diff' package) is ~1 MB the broker
    // would otherwise hold from start to end.
    const { diffDefinitions, diffVersions } = await import('../../../shared/definition-diff.js');
    const out: ServerChanges[] = [];
    for (const server of Object.keys(this.opts.settings.listServers())) {
      const record = this.store.get(server);
      const current = this.identities.get(server);
      const version = record.identity && current ? diffVersions(record.identity.serverInfo?.version, current.serverInfo?.version) : undefined;
      const instructions = record.identity && current && record.identity.instructions !== current.instructions
        ? { from: record.identity.instructions, to: current.instructions }
        : undefined;
      const tools = Object.entries(record.held).map(([name, held]) => ({
        name,
        hash: heldChangeHash(record, name)!,
        kind: held.kind,
        diff: diffDefinitions(record.tools[name]?.definition, held.definition),
        findings: held.definition ? this.toolFindings(server, held.definition, listings) : [],
        detectedAt: held.detectedAt,
        rejected: held.rejected,
      }));
      const identityHash = (version || instructions) && current ? identityFingerprint(current) : undefined;
      if (tools.length || version || instructions) out.push({ server, version, instructions, identityHash, tools });
    }
    return out;
  }

  review(server: string, action: ReviewAction, only: string[] | undefined, actor: Actor, acceptIdentity = false): string[] {
    const decided = this.tracker.review(server, action, only, actor);
    const current = this.identities.get(server);
    if (action === 'accept' && acceptIdentity && current) {
      this.store.update(server, (r) => (r.identity = current));
      this.opts.record({ kind: 'review', actor, server, what: 'identity accepted', details: { serverInfo: current.serverInfo, protocolVersion: current.protocolVersion } });
    }
    this.opts.emit({ type: 'servers-changed' });
    return decided;
  }

  // ---- pins ----

  effectivePin(server: string): (PinRecord & { by: 'person' | 'policy' }) | undefined {
    const fromPolicy = this.policy.serverEntry(server)?.pin;
    if (fromPolicy && (fromPolicy.version || fromPolicy.definitionsHash)) {
      return {
        version: fromPolicy.version,
        definitionsHash: fromPolicy.definitionsHash ?? '',
        package: undefined,
        pinnedAt: '',
        by: 'policy',
      };
    }
    return this.store.get(server).pin;
  }

  /**
   * Every pin that holds: the person's and the team policy's. A policy adds friction, never removes it,
   * so its pin is checked beside the person's, never instead of it.
   */
  private pinsOf(server: string): Array<Pick<PinRecord, 'version' | 'definitionsHash' | 'by'>> {
    const fromPolicy = this.policy.serverEntry(server)?.pin;
    const own = this.store.get(server).pin;
    return [
      ...(own ? [own] : []),
      ...(fromPolicy && (fromPolicy.version || fromPolicy.definitionsHash) ? [{ version: fromPolicy.version, definitionsHash: fromPolicy.definitionsHash ?? '', by: 'policy' as const }] : []),
    ];
  }

  identityOf(server: string): IdentityRecord | undefined {
    return this.identities.get(server);
  }

  /** Pins to what runs now. npx/uvx/docker launches are rewritten to the exact package version or digest. */
  async pin(server: string, config: ServerConfig, tools: ToolDefinition[], actor: Actor, stillCurrent: () => void = () => undefined): Promise<{ pin: PinView; config?: ServerConfig }> {
    const identity = this.identities.get(server);
    const { package: pkg, config: newConfig, rewrite } = await pinPackage(config, this.opts.resolver, this.packageContext());
    const pin: PinRecord = {
      version: identity?.serverInfo?.version,
      definitionsHash: listingHash(tools),
      package: pkg,
      rewrite,
      pinnedAt: new Date().toISOString(),
      by: 'person',
    };
    stillCurrent();
    this.store.update(server, (r) => {
      r.pin = pin;
      delete r.quarantine;
      // The person asked for this rewrite and is shown it: it counts as their consent to the new command.
      if (newConfig) r.launch = { hash: launchHash(newConfig), approvedAt: pin.pinnedAt, by: 'person' };
    });
    this.unsavedQuarantine.delete(server);
    this.opts.record({ kind: 'pin', actor, server, what: rewrite ? `pinned; launch rewritten to ${rewrite.to.join(' ')}` : 'pinned', details: pin });
    this.opts.emit({ type: 'servers-changed' });
    return { pin, config: newConfig };
  }

  private packageContext(): PackageContext {
    return { npxCache: this.opts.npxCache ?? npxCacheDir(), node: defaultNode(), prepared: this.opts.prepared };
  }

  /**
   * What actually starts: for a pinned npx package, the checked copy (node on its bin). Same version,
   * other content: quarantined with both hashes, and nothing starts.
   */
  async prepareLaunch(server: string, config: ServerConfig): Promise<ServerConfig> {
    const check = await checkPinnedLaunch(server, config, this.store.get(server).pin?.package, this.packageContext());
    if (check.ok) return check.spec;
    if (check.quarantine) this.quarantine(server, check.quarantine);
    throw new PackageRefusedError(check.why);
  }

  unpin(server: string, actor: Actor): void {
    if (this.policy.serverEntry(server)?.pin) throw new Error(`'${server}' is pinned by the team policy; only the policy can unpin it.`);
    this.store.update(server, (r) => {
      delete r.pin;
      delete r.quarantine;
    });
    this.unsavedQuarantine.delete(server);
    this.opts.record({ kind: 'pin', actor, server, what: 'unpinned', decision: 'deny' });
    this.opts.emit({ type: 'servers-changed' });
  }

  forget(server: string): void {
    this.store.forget(server);
    forgetLimitsBaseline(this.opts.seal, server);
    if (this.opts.seal) withdrawWithoutLimits(this.opts.seal, server);
    this.identities.delete(server);
  }
}

/** What a person reviews of a server's changed identity (version, instructions). */
export function identityFingerprint(identity: IdentityRecord): string {
  return createHash('sha256').update(canonicalJson(identity)).digest('hex');
}

