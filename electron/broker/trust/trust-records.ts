// What trust is kept in: the records on disk (trust-store.ts), the approved definitions (definition-tracker.ts),
// the team policy, what each server said at its last initialize, and quarantines. The other trust modules
// (launch-approval, session-records, call-view, trust-findings, trust-views, pins) work on this state.
import type { BrokerEvent } from '../../../shared/api.js';
import type { Change } from '../audit/change-entry.js';
import type { SettingsStore } from '../store/settings-store.js';
import type { GrantSeal } from '../store/grant-seal.js';
import { DefinitionTracker } from './definition-tracker.js';
import type { PackageContext } from './packages/package-check.js';
import { npxCacheDir } from './packages/npx-resolution.js';
import { CatalogueTrust } from '../policy/catalogue-trust.js';
import { ManagedPolicySource } from '../policy/managed-source.js';
import { TeamPolicySource } from '../policy/team-policy.js';
import { TrustStore, type IdentityRecord, type PinRecord } from './trust-store.js';
import type { VersionResolver } from './version-resolver.js';

export interface TrustManagerOptions {
  dataDir: string;
  settings: SettingsStore;
  /** Writes a change of state to the audit log. */
  record(change: Change): void;
  emit(event: BrokerEvent): void;
  warn(text: string): void;
  /** The managed policy file in effect (policy/managed-source.ts); it outranks the user policy. */
  managedPolicyPath?(): string | undefined;
  /** The user policy file in effect (policy/policy-path.ts). */
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

export type EffectivePin = PinRecord & { by: 'person' | 'policy' };

export class TrustRecords {
  readonly store: TrustStore;
  readonly tracker: DefinitionTracker;
  readonly policy: TeamPolicySource;
  /** The organization's managed policy, when one is deployed. */
  readonly managed: ManagedPolicySource;
  /** The managed policy's catalogue of reviewed servers: organization trust, and its restrictions. */
  readonly catalogue: CatalogueTrust;
  /** What each server said about itself at its last initialize. */
  readonly identities = new Map<string, IdentityRecord>();
  /** Quarantines the disk would not take: they hold in memory all the same. */
  private readonly unsavedQuarantine = new Map<string, string[]>();
  private readonly diskWarned = new Set<string>();

  constructor(readonly opts: TrustManagerOptions) {
    this.store = TrustStore.open(opts.dataDir, (text) => this.recordsLost(text), opts.seal);
    this.policy = new TeamPolicySource(opts.policyPath, opts.warn, opts.policyMayPreapprove ?? false);
    this.managed = new ManagedPolicySource(() => opts.managedPolicyPath?.(), opts.warn);
    this.catalogue = new CatalogueTrust({
      managed: this.managed,
      declined: (server) => this.store.get(server).declined === true,
      record: opts.record,
      changed: () => opts.emit({ type: 'servers-changed' }),
      context: () => ({ npxCache: opts.npxCache ?? npxCacheDir(), resolver: opts.resolver }),
    });
    this.tracker = new DefinitionTracker(this.store, {
      note: (server, tool, what, details, actor) =>
        opts.record({ kind: 'review', actor, server, tool, what, details, decision: what === 'change rejected' ? 'deny' : 'allow' }),
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
  saveOrWarn(what: string, save: () => void): boolean {
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
      this.opts.record({
        kind: 'trust',
        actor: 'countersign',
        server: s,
        what: 'trust withdrawn: the trust records could not be read',
        details: { trusted: false },
        decision: 'deny',
      });
    }
    this.opts.warn(trusted.length ? `${text} Trust was withdrawn from: ${trusted.join(', ')}.` : text);
  }

  /** What the server said at its last initialize, else what was recorded when it was approved. */
  identity(server: string): IdentityRecord | undefined {
    return this.identities.get(server) ?? this.store.get(server).identity;
  }

  quarantined(server: string): string[] {
    return [...(this.store.get(server).quarantine ?? []), ...(this.unsavedQuarantine.get(server) ?? [])];
  }

  quarantine(server: string, why: string): void {
    const current = this.quarantined(server);
    if (current.includes(why)) return;
    const saved = this.saveOrWarn(`the quarantine of '${server}'`, () => this.store.update(server, (r) => (r.quarantine = [...(r.quarantine ?? []), why])));
    // Not saved, it holds in this process all the same.
    if (!saved) this.unsavedQuarantine.set(server, [...(this.unsavedQuarantine.get(server) ?? []), why]);
    this.opts.record({ kind: 'pin', actor: 'countersign', server, what: `quarantined: ${why}`, details: { reasons: [...current, why] }, decision: 'deny' });
    this.opts.emit({ type: 'servers-changed' });
  }

  /** A re-pin or unpin lifts the quarantines held in memory too (the stored ones go with the record). */
  liftUnsavedQuarantine(server: string): void {
    this.unsavedQuarantine.delete(server);
  }

  /** The pin shown: the team policy's when it sets one, else the person's. */
  effectivePin(server: string): EffectivePin | undefined {
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
  pinsOf(server: string): Array<Pick<PinRecord, 'version' | 'definitionsHash' | 'by'>> {
    const fromPolicy = this.policy.serverEntry(server)?.pin;
    const own = this.store.get(server).pin;
    return [
      ...(own ? [own] : []),
      ...(fromPolicy && (fromPolicy.version || fromPolicy.definitionsHash)
        ? [{ version: fromPolicy.version, definitionsHash: fromPolicy.definitionsHash ?? '', by: 'policy' as const }]
        : []),
    ];
  }
}
