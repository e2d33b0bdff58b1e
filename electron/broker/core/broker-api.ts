// The one typed API, as one surface sees it. Each bridge gets its own instance from `Broker.apiFor`
// (HTTP: 'browser', the desktop app: 'desktop', the local socket and the in-process CLI: 'cli'), so
// every change is written to the audit log with who made it, and no caller can claim to be another.
import { resolve } from 'node:path';
import type {
  InlineApprovalClient,
  Actor,
  AuditEntry,
  BrokerEvent,
  LaunchRequest,
  BrokerStatus,
  CountersignApi,
  DecideResult,
  DecisionRequest,
  FilePreview,
  LogQuery,
  PendingCall,
  PinView,
  ReviewAction,
  ReviewedTool,
  RulePatch,
  RuleRequest,
  SeenServer,
  ServerChanges,
  ServerConfig,
  ServerView,
  Settings,
  SettingsPatch,
  UnsealedGrant,
  UnsealedRef,
} from '../../../shared/api.js';
import { buildScope } from '../../../shared/rules.js';
import type { NewRule } from '../calls/pending-queue.js';
import type { ClientId, ClientScanOptions, ClientView, UnwrapPreview, UnwrapResult, WrapOptions, WrapPreview, WrapResult } from '../../../shared/clients.js';
import type { Rule } from '../../../shared/decision.js';
import type { BrokerCore } from './broker-core.js';
import { countersignCommand, formatWords, type CliCommand } from './cli-command.js';
import { resolveDataDir } from '../store/data-dir.js';
import { previewFile } from '../calls/file-preview.js';
import { assertChangeSeen, assertLaunchSeen, assertListingSeen, ChangedSinceShownError } from './seen-check.js';
import { validateServerName } from '../store/settings-store.js';
import { addServer, pickLaunch, redactConfig, removeServer, storeNewServer } from './server-service.js';
import { heldChangeHash } from '../trust/definition-tracker.js';
import { launchApproved, launchHash, launchHash as hashOfLaunch } from '../trust/launch-consent.js';
import { identityFingerprint } from '../trust/trust-manager.js';
import type { LimitsProfile } from '../../../shared/limits.js';
import { limitsView, setRunWithoutLimits, setServerLimits } from '../trust/server-limits.js';
import { runsWithoutLimits } from '../trust/run-without-limits.js';
import { confirmUnsealed, discardUnsealed, listUnsealed, storeWarnings } from '../store/unsealed-grants.js';
import { commandNotFound } from '../explain/command-lookup.js';
import type { DoctorReport } from '../../../shared/doctor.js';
import { policyStatus, setPolicyPath } from '../policy/policy-setting.js';
import { setAuditExport, shownSettings } from '../audit-export/export-setting.js';
import { managedStatus } from '../policy/managed-status.js';
import { VERSION } from './version.js';
import type { UndoableCall, UndoPreview, UndoResult, UndoTarget } from '../../../shared/undo.js';

const withSlowStart = (note: ServerView['slowStart']) => (note ? { slowStart: note } : {});

/** Looked up as a start would (server-process.ts): its own PATH if it sets one, else the one servers inherit. */
function withMissingCommand(config: ServerConfig): Pick<ServerView, 'commandNotFound'> {
  if (!('command' in config)) return {};
  const why = commandNotFound(config.command, config.env?.PATH ?? process.env.PATH, config.cwd ?? process.cwd());
  return why ? { commandNotFound: why } : {};
}

export class BrokerApi implements CountersignApi {
  constructor(
    private readonly core: BrokerCore,
    private readonly actor: Actor,
  ) {}

  async getStatus(): Promise<BrokerStatus> {
    const { core } = this;
    return {
      version: VERSION,
      dataDir: core.opts.dataDir,
      warnings: [...core.warnings, ...storeWarnings(core), ...core.auditExport.warnings()],
      ...core.endpoints,
      ...connectLaunch(core.opts.dataDir, core.opts.env ?? process.env),
      paused: core.paused,
      sandbox: await core.sandbox(),
      httpSessions: core.httpSessions?.(),
      policy: policyStatus(core),
      ...catalogueStatus(core),
      auditExport: core.auditExport.status(),
      managed: managedStatus(core.trust.managed, core.store.getSettings().approvalTimeoutSeconds),
    };
  }

  async listPending(): Promise<PendingCall[]> {
    return this.core.pending.list();
  }

  async listLaunchRequests(): Promise<LaunchRequest[]> {
    const { core } = this;
    // Still waiting: the same command, not approved since (by the queue, the Servers screen or the CLI).
    return core.launchRequests.list((server, hash, filled) => {
      const config = core.store.getServer(server);
      if (config === undefined || launchHash(config) !== (filled ? filled.base : hash)) return false;
      return !launchApproved(filled ? filled.consent : config, core.trust.store.get(server));
    });
  }

  async decide(id: string, decision: DecisionRequest): Promise<DecideResult> {
    const call = this.core.pending.get(id);
    if (!call) return { ok: false, error: 'not-pending' };
    const rule = decision.kind === 'allow-rule' ? newRule(call, decision.rule) : undefined;
    let decided: boolean;
    try {
      // A rule is saved within the decision (pending-queue commit): ok only once it is on disk.
      decided = this.core.pending.decide(id, decision, this.actor, rule);
    } catch (err) {
      // A read-only or full disk, safe mode: nothing is decided, and the call keeps waiting.
      return {
        ok: false,
        error: 'not-saved',
        message: `The rule could not be saved (${(err as Error).message}), so nothing was decided: the call still waits. Allow it once, or fix the problem and try again.`,
      };
    }
    if (!decided) return { ok: false, error: 'not-pending' };
    const untrustedGrant = !call.serverTrusted && (decision.kind === 'allow-session' || decision.kind === 'always-allow' || decision.kind === 'allow-rule');
    return {
      ok: true,
      forwarded: decision.kind !== 'deny',
      note: untrustedGrant ? `'${call.server}' is not trusted: this call runs, but later calls still ask until you trust the server.` : undefined,
    };
  }

  async listServers(): Promise<ServerView[]> {
    const { core } = this;
    const support = await core.sandbox();
    return Object.entries(core.store.listServers()).map(([name, config]) => {
      const sessions = core.sessionsOf(name);
      const { running: _running, ...trust } = core.trust.serverView(name, config, core.lastTools.get(name) ?? [], core.lastTools);
      return {
        name,
        config: redactConfig(config),
        trusted: core.store.isTrusted(name),
        sessions,
        lastError: core.lastErrors.get(name),
        ...trust,
        status: trust.status === 'idle' && sessions > 0 ? 'running' : trust.status,
        limits: limitsView(config, support, core.lastTools.get(name) ?? [], core.runningLimits(name)[0], {
          home: core.opts.home,
          hide: core.sandboxHide(config),
          runsWithoutLimits: runsWithoutLimits(core.seal, name, config),
        }),
        ...withSlowStart(core.startTimes.note(name, config, process.env)),
        ...withMissingCommand(config),
      };
    });
  }

  async addServer(name: string, config: ServerConfig): Promise<void> {
    await addServer(this.core, this.actor, name, config);
  }

  async removeServer(name: string): Promise<void> {
    await removeServer(this.core, this.actor, name);
  }

  async setTrust(name: string, trusted: boolean, seen?: SeenServer): Promise<void> {
    const { core } = this;
    const config = core.requireServer(name);
    if (!trusted) {
      core.store.setTrusted(name, false);
      core.trust.onTrust(name, false, undefined, this.actor);
      core.emit({ type: 'servers-changed' });
      return;
    }
    if (!seen) throw new ChangedSinceShownError(`Trusting '${name}' needs what you saw: its launch hash and tool listing hash.`);
    assertLaunchSeen(name, config, seen.launchHash);
    assertListingSeen(name, core.lastTools.get(name), seen.listingHash);
    let tools = core.lastTools.get(name);
    // Trust is granted to a recorded state: learn it first when no client has run the server yet
    // (only when its command may run; otherwise the first listing becomes the record).
    if (!tools && !core.trust.tracker.hasRecord(name) && launchApproved(config, core.trust.store.get(name))) {
      tools = await core.probe(name).catch(() => undefined);
      // The command may have been edited while the server was probed: the person trusted the one shown.
      assertLaunchSeen(name, core.requireServer(name), seen.launchHash);
    }
    core.store.setTrusted(name, true);
    core.trust.onTrust(name, true, tools, this.actor, { ...seen });
    core.emit({ type: 'servers-changed' });
  }

  async listRules(): Promise<Rule[]> {
    return this.core.rules.list();
  }

  async removeRule(id: string): Promise<void> {
    this.core.rules.remove(id, this.actor);
  }

  async updateRule(id: string, patch: RulePatch): Promise<Rule> {
    if (patch.expiresAt != null && Number.isNaN(Date.parse(patch.expiresAt))) throw new Error('expiresAt is not a time.');
    return this.core.rules.update(id, patch, this.actor);
  }

  async getSettings(): Promise<Settings> {
    return shownSettings(this.core.effectiveSettings(), this.core.seal);
  }

  async updateSettings(patch: SettingsPatch): Promise<Settings> {
    const { core } = this;
    const { policyPath, auditExport, ...rest } = patch;
    const before = core.store.getSettings();
    // The policy path is the person's sealed choice (policy/policy-path.ts), checked before anything is saved.
    const unchanged = policyPath === (core.seal.policyPath() ?? null) && policyPath === (before.policyPath ?? null);
    if (policyPath !== undefined && !unchanged) setPolicyPath(core, policyPath, this.actor);
    if (auditExport !== undefined) setAuditExport(core, auditExport, this.actor);
    const others = Object.values(rest).some((v) => v !== undefined);
    if (others) {
      core.store.updateSettings(rest);
      if (rest.approvalTimeoutSeconds !== undefined) delete core.opts.approvalTimeoutSeconds;
      core.record({ kind: 'settings', actor: this.actor, server: '*', what: 'settings changed', details: { from: pick(before, rest), to: rest } });
      core.emit({ type: 'settings-changed' });
    }
    return shownSettings(core.effectiveSettings(), core.seal);
  }

  async queryLog(query: LogQuery): Promise<AuditEntry[]> {
    // Calls `connect` has reported but the broker has not read yet are part of the answer.
    await this.core.drainReports();
    return this.core.audit.query(query);
  }

  async listChanges(): Promise<ServerChanges[]> {
    return this.core.trust.listChanges(this.core.lastTools);
  }

  async reviewChanges(server: string, action: ReviewAction, tools?: ReviewedTool[], identityHash?: string): Promise<void> {
    const { core } = this;
    core.requireServer(server);
    if (action === 'accept') {
      if (!tools) throw new Error('Accepting changes names each tool with the hash of the change you reviewed.');
      const record = core.trust.store.get(server);
      for (const t of tools) assertChangeSeen(server, t.name, heldChangeHash(record, t.name), t.hash);
      if (identityHash !== undefined) {
        const identity = core.trust.identityOf(server);
        if (!identity || identityFingerprint(identity) !== identityHash) {
          throw new ChangedSinceShownError(`'${server}' described itself differently after it was shown to you, so nothing was accepted. Review it again.`);
        }
      }
    }
    const decided = core.trust.review(
      server,
      action,
      tools?.map((t) => t.name),
      this.actor,
      identityHash !== undefined,
    );
    if (action === 'accept' && decided.length) core.notifyToolsChanged(server);
  }

  async pinServer(name: string, seen: SeenServer): Promise<PinView> {
    const { core } = this;
    const config = core.requireServer(name);
    assertLaunchSeen(name, config, seen.launchHash);
    assertListingSeen(name, core.lastTools.get(name), seen.listingHash);
    const tools = core.lastTools.get(name) ?? (await core.probe(name));
    // Pinning awaits (a probe, the registry): it commits only if the command is still the one shown.
    const { pin, config: rewritten } = await core.trust.pin(name, config, tools, this.actor, () =>
      assertLaunchSeen(name, core.requireServer(name), seen.launchHash),
    );
    if (rewritten) core.store.updateServerConfig(name, rewritten);
    return pin;
  }

  async unpinServer(name: string): Promise<void> {
    this.core.requireServer(name);
    this.core.trust.unpin(name, this.actor);
  }

  async approveLaunch(name: string, launchHash: string): Promise<void> {
    const stored = this.core.requireServer(name);
    // A launch whose placeholders a client filled is approved as it waits: those values, that command line.
    const filled = this.core.launchRequests.filledLaunch(name, launchHash);
    const config = filled && filled.base === hashOfLaunch(stored) ? filled.consent : stored;
    assertLaunchSeen(name, config, launchHash);
    this.core.trust.approveLaunch(name, config, this.actor);
    this.core.emit({ type: 'servers-changed' });
  }

  async setLimits(name: string, limits: LimitsProfile, launchHash?: string): Promise<void> {
    await setServerLimits(this.core, this.actor, name, limits, launchHash);
  }

  async setRunWithoutLimits(name: string, allowed: boolean, launchHash?: string): Promise<void> {
    await setRunWithoutLimits(this.core, this.actor, name, allowed, launchHash);
  }

  async importServers(input: Record<string, unknown>): Promise<{ added: string[]; skipped: Array<{ name: string; why: string }> }> {
    // Accept a whole client config ({ mcpServers: {...} }) or just its mcpServers object.
    const servers = typeof input.mcpServers === 'object' && input.mcpServers !== null ? (input.mcpServers as Record<string, unknown>) : input;
    const added: string[] = [];
    const skipped: Array<{ name: string; why: string }> = [];
    const existing = this.core.store.listServers();
    for (const [name, raw] of Object.entries(servers)) {
      const bad = validateServerName(name);
      if (bad) {
        skipped.push({ name, why: bad });
        continue;
      }
      if (Object.hasOwn(existing, name)) {
        skipped.push({ name, why: 'a server with this name already exists' });
        continue;
      }
      try {
        const config = pickLaunch(raw);
        storeNewServer(this.core, this.actor, name, config, 'server imported');
        added.push(name);
      } catch (err) {
        skipped.push({ name, why: (err as Error).message });
      }
    }
    if (added.length) this.core.emit({ type: 'servers-changed' });
    return { added, skipped };
  }

  async setPaused(paused: boolean): Promise<void> {
    this.core.paused = paused;
    this.core.record({
      kind: 'settings',
      actor: this.actor,
      server: '*',
      what: paused ? 'paused: every call is denied' : 'resumed',
      details: { paused },
      decision: paused ? 'deny' : 'allow',
    });
    this.core.emit({ type: 'status-changed' });
  }

  async runDoctor(opts?: ClientScanOptions): Promise<DoctorReport> {
    const [{ coreContext }, { doctorReport }] = await Promise.all([import('../doctor/core-context.js'), import('../doctor/report.js')]);
    return doctorReport(coreContext(this.core, this, opts));
  }

  async listInlineApproval(): Promise<InlineApprovalClient[]> {
    return this.core.inlineApproval.list();
  }

  async setInlineApproval(client: string, enabled: boolean): Promise<void> {
    if (!this.core.inlineApproval.set(client, enabled)) return;
    this.core.record({
      kind: 'settings',
      actor: this.actor,
      server: '*',
      what: enabled ? `approval inside the client turned on for ${client}` : `approval inside the client turned off for ${client}`,
      details: { inlineApproval: { client, enabled } },
      decision: enabled ? 'allow' : 'deny',
    });
    this.core.emit({ type: 'settings-changed' });
  }

  listUndoable(): Promise<UndoableCall[]> {
    return this.core.undo.list();
  }

  previewUndo(target: UndoTarget): Promise<UndoPreview> {
    return this.core.undo.preview(target);
  }

  /** Consent-bound: the core re-plans and refuses when the preview's hash moved (see UndoService.apply). */
  undo(target: UndoTarget, previewHash: string, opts: { confirmConflicts?: boolean } = {}): Promise<UndoResult> {
    return this.core.undo.apply(target, previewHash, opts, this.actor);
  }

  async readFileForPreview(path: string): Promise<FilePreview> {
    return previewFile(path, this.core.pending.list());
  }

  listClients(opts?: ClientScanOptions): Promise<ClientView[]> {
    return this.core.clients.listClients(opts);
  }

  previewWrap(client: ClientId, opts: WrapOptions): Promise<WrapPreview> {
    return this.core.clients.previewWrap(client, opts);
  }

  wrapClient(client: ClientId, opts: WrapOptions, planHash: string): Promise<WrapResult> {
    return this.core.clients.wrapClient(client, opts, planHash, this.actor);
  }

  previewUnwrap(client: ClientId, opts: ClientScanOptions): Promise<UnwrapPreview> {
    return this.core.clients.previewUnwrap(client, opts);
  }

  unwrapClient(client: ClientId, opts: ClientScanOptions, planHash?: string): Promise<UnwrapResult> {
    return this.core.clients.unwrapClient(client, opts, planHash, this.actor);
  }

  async listUnsealed(): Promise<UnsealedGrant[]> {
    return listUnsealed(this.core);
  }

  async confirmUnsealed(grant: UnsealedRef): Promise<void> {
    confirmUnsealed(this.core, this.actor, grant);
  }

  async discardUnsealed(grant: UnsealedRef): Promise<void> {
    discardUnsealed(this.core, this.actor, grant);
  }

  subscribe(listener: (event: BrokerEvent) => void): () => void {
    return this.core.subscribe(listener);
  }
}

/** The rule a person asked for on a call, built from that call's own arguments; refused when it does not fit. */
function newRule(call: PendingCall, request: RuleRequest): NewRule {
  const built = buildScope(request.scope, call.tool, call.arguments);
  if ('error' in built) throw new Error(built.error);
  const { lifetime } = request;
  return {
    scope: built.scope,
    expiresAt: lifetime.kind === 'minutes' ? new Date(Date.now() + lifetime.minutes * 60_000).toISOString() : undefined,
    session: lifetime.kind === 'session' ? call.client.session : undefined,
    coversExfiltration: request.coversExfiltration || undefined,
  };
}

function pick(settings: Settings, patch: Partial<Settings>): Partial<Settings> {
  return Object.fromEntries(Object.keys(patch).map((k) => [k, settings[k as keyof Settings]]));
}

/** The exact command a client runs; names the data dir when it is not the one `connect` finds by itself. */
function connectLaunch(dataDir: string, env: NodeJS.ProcessEnv): Pick<BrokerStatus, 'connectCommand' | 'connectLaunch'> {
  let cli: CliCommand;
  try {
    cli = countersignCommand();
  } catch (err) {
    // Not in a package nor the app (a copied bundle): say so rather than fail the status.
    cli = { command: 'countersign', args: [], note: `${(err as Error).message} This entry relies on \`countersign\` being on the client's PATH.` };
  }
  const own = resolve(resolveDataDir({ env })) === resolve(dataDir) ? [] : ['--data-dir', dataDir];
  const args = [...cli.args, 'connect', SERVER_PLACEHOLDER, ...own];
  // The placeholder is for the person to replace, so it is shown bare, not quoted.
  const line = [formatWords([cli.command, ...cli.args, 'connect']), SERVER_PLACEHOLDER, ...(own.length ? [formatWords(own)] : [])].join(' ');
  return { connectCommand: line, connectLaunch: { command: cli.command, args, ...(cli.note ? { note: cli.note } : {}) } };
}

const SERVER_PLACEHOLDER = '<server>';

/** Servers the organization's catalogue trusts, finds different or refuses (none listed without a catalogue). */
function catalogueStatus(core: BrokerCore): Pick<BrokerStatus, 'catalogue'> {
  const views = Object.entries(core.store.listServers()).flatMap(([server, config]) => {
    const view = core.trust.catalogueView(server, config);
    return view && (view.state !== 'none' || view.refused) ? [{ server, ...view }] : [];
  });
  return views.length ? { catalogue: views } : {};
}
