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
import { ManagedPolicySource, type ManagedSourceOptions } from '../policy/managed-source.js';
import { managedInputs } from '../policy/managed-paths.js';
import type { ServerConfig } from '../../../shared/api.js';
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
  /** Where the managed policy is read (policy/managed-paths.ts managedInputs); it outranks the user policy. */
  managed?: Omit<ManagedSourceOptions, 'warn'>;
  /** The user policy file in effect (policy/policy-path.ts). */
  policyPath(): string | undefined;
  /**
   * Whether that policy's `command` entries stand in for the person's launch consent. Never for a user
   * policy: the managed policy pre-approves through TrustRecords.preapproval.
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

export type EffectivePin = PinRecord & { by: 'person' | 'policy'; managed?: boolean };

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
    this.managed = new ManagedPolicySource({ ...(opts.managed ?? managedInputs(undefined, process.env)), warn: opts.warn });
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

  /** Why the server may not start or run: the managed policy first (it outranks), then the user's. */
  blockReason(server: string, config?: ServerConfig): string | undefined {
    return this.managed.blockReason(server, config) ?? this.policy.blockReason(server, config);
  }

  /** Either policy may make a tool always ask: friction adds up. */
  alwaysAsk(server: string, tool: string): boolean {
    return this.managed.alwaysAsk(server, tool) || this.policy.alwaysAsk(server, tool);
  }

  /** The entry whose `command` may stand in for the person's launch consent: the managed policy's, else one from a source that may. */
  preapproval(server: string): { entry: NonNullable<ReturnType<TeamPolicySource['serverEntry']>>; managed: boolean } | undefined {
    const managed = this.managed.serverEntry(server);
    if (managed?.command) return { entry: managed, managed: true };
    const entry = this.policy.preapproval(server);
    return entry ? { entry, managed: false } : undefined;
  }

  /** The policies' pins: the managed policy's first (the person cannot remove it), then the user policy's. */
  private policyPins(server: string): EffectivePin[] {
    const out: EffectivePin[] = [];
    for (const [entry, managed] of [
      [this.managed.serverEntry(server), true],
      [this.policy.serverEntry(server), false],
    ] as const) {
      const pin = entry?.pin;
      if (pin && (pin.version || pin.definitionsHash)) {
        out.push({
          version: pin.version,
          definitionsHash: pin.definitionsHash ?? '',
          package: undefined,
          pinnedAt: '',
          by: 'policy',
          ...(managed ? { managed } : {}),
        });
      }
    }
    return out;
  }

  /** The pin shown: a policy's when one sets it (the managed one first), else the person's. */
  effectivePin(server: string): EffectivePin | undefined {
    return this.policyPins(server)[0] ?? this.store.get(server).pin;
  }

  /**
   * Every pin that holds: the person's and the policies'. A policy adds friction, never removes it,
   * so its pin is checked beside the person's, never instead of it.
   */
  pinsOf(server: string): Array<Pick<PinRecord, 'version' | 'definitionsHash' | 'by'>> {
    const own = this.store.get(server).pin;
    return [...(own ? [own] : []), ...this.policyPins(server)];
  }
}
