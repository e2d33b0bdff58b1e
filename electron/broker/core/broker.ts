// The broker: wires settings, sessions, the pending queue and the audit log together. Each surface
// (browser UI, desktop app, CLI) gets the one typed API from `apiFor(actor)` (broker-api.ts), so every
// change takes the same path and is logged with who made it. The API and the feature modules take the
// narrow BrokerCore (broker-core.ts), not this class. No Electron here: it runs headless and under Node.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import type { Actor, BrokerEvent, BrokerStatus, CountersignApi, ServerConfig, Settings } from '../../../shared/api.js';
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import type { SandboxSupport } from '../../../shared/limits.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { AuditLog } from '../audit/audit-log.js';
import { AuditGuard } from '../audit/audit-guard.js';
import { AuditRecorder } from '../audit/audit-recorder.js';
import { AuditExport } from '../audit-export/audit-export.js';
import { logSource } from '../audit-export/export-source.js';
import { handEditedExport } from '../audit-export/export-setting.js';
import type { Change } from '../audit/change-entry.js';
import { CallGate } from '../calls/call-gate.js';
import { ClientPatience } from '../calls/client-patience.js';
import { InlineApprovalSettings } from '../calls/inline-approval.js';
import { managedInputs } from '../policy/managed-paths.js';
import { cappedTimeout, inlineApprovalOffReason, ruleRefusal, rulesInForce } from '../policy/managed-restrictions.js';
import { PendingQueue } from '../calls/pending-queue.js';
import { RuleBook } from '../calls/rule-book.js';
import { ProtectScopeCache } from '../checks/protect-scope-cache.js';
import { protectedPaths } from '../checks/protected-paths.js';
import type { ProtectedPath } from '../checks/self-protection.js';
import { ClientConfigs } from '../clients/client-configs.js';
import { StartTimes } from '../doctor/slow-start.js';
import { resultLane } from '../http/result-lane.js';
import { requestLine } from '../http/request-lane.js';
import type { RefusedCall } from '../relay/protocol/refused-calls.js';
import { serverRequestEntry } from '../relay/protocol/server-requests.js';
import { RelaySession } from '../relay/relay-session.js';
import { SessionEvents } from '../relay/session-events.js';
import { SessionRegistry } from '../relay/session-registry.js';
import { BrokerHalf } from '../relay-mode/broker/broker-half.js';
import type { ControlChannel } from '../relay-mode/control-channel.js';
import { GrantSeal } from '../store/grant-seal.js';
import { SettingsStore } from '../store/settings-store.js';
import { cleanTmpLeftovers } from '../store/tmp-cleanup.js';
import { LaunchRequests } from '../trust/launch-requests.js';
import { policyPathChoice, type PolicyPathChoice } from '../policy/policy-path.js';
import { TrustManager } from '../trust/trust-manager.js';
import { ProbeTransport, probeTools } from '../upstream/probe-client.js';
import type { HideSpec } from '../upstream/sandbox/hidden-paths.js';
import { preparedFolder } from '../upstream/sandbox/package-prep.js';
import { ServerSandbox } from '../upstream/sandbox/server-sandbox.js';
import { startUpstream } from '../upstream/server-upstream.js';
import { takesByteAnswers, type MessageTransport } from '../wire/transport.js';
import { BrokerApi } from './broker-api.js';
import type { BrokerCore } from './broker-core.js';
import type { BrokerOptions } from './broker-options.js';
import { countersignCommand } from './cli-command.js';
import { EventBus } from './event-bus.js';
import { addServer, removeServer, UnknownServerError } from './server-service.js';
import { startableConfig } from '../trust/start-check.js';
import { UndoService } from '../undo/undo-service.js';
import { snapshotPauseHook } from '../undo/pause-hook.js';
import type { FillValues } from '../trust/launch-fill.js';

export type { BrokerOptions } from './broker-options.js';

export class Broker implements BrokerCore {
  readonly store: SettingsStore;
  /** Sealed grants: trust, launch consent and rules written by hand take effect only once confirmed. */
  readonly seal: GrantSeal;
  readonly audit: AuditLog;
  /** A log the disk refuses: entries kept, new calls refused until it takes them. */
  readonly auditGuard: AuditGuard;
  readonly pending: PendingQueue;
  readonly trust: TrustManager;
  /** The person's allow rules: saved, and per client session. */
  readonly rules: RuleBook;
  /** MCP clients' config files: list, wrap, unwrap. */
  readonly clients: ClientConfigs;
  /** Launches refused for want of consent, waiting in the queue (one per server and command). */
  readonly launchRequests: LaunchRequests;
  /** Undo: snapshots of what allowed calls change, and putting them back. */
  readonly undo: UndoService;
  /** Every audit entry to the organization's pipeline (OTLP, syslog), off the call path. */
  readonly auditExport: AuditExport;
  private readonly gate: CallGate;
  private readonly sessions = new SessionRegistry();
  private readonly sessionEvents = new SessionEvents(this, this.sessions);
  private readonly events: EventBus;
  private readonly recorder: AuditRecorder;
  private readonly scopes: ProtectScopeCache;
  private readonly sandboxes: ServerSandbox;
  /** Each server's last complete tool listing, as a client (or a probe) saw it. */
  readonly lastTools = new Map<string, ToolDefinition[]>();
  readonly lastErrors = new Map<string, string>();
  /** How long each server's last start took to answer (a note past 10 s). */
  readonly startTimes: StartTimes;
  readonly warnings: string[] = [];
  paused = false;
  /** Which clients may answer pending calls in their own form (in memory: no file turns it on). */
  readonly inlineApproval = new InlineApprovalSettings(() => inlineApprovalOffReason(this.trust.managed.restrictions()));
  endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'> = {};

  constructor(readonly opts: BrokerOptions) {
    this.startTimes = new StartTimes(opts.clock);
    this.events = new EventBus({ revokeLeases: () => this.sessions.revokeLeases(), clearCaches: () => this.scopes.clear() });
    this.scopes = new ProtectScopeCache({
      server: (name) => this.store.getServer(name),
      protectedPaths: (projects) => this.protectedPaths(projects),
      env: () => opts.env ?? process.env,
    });
    // Temp files of writes that were killed midway (only their writer could finish them, and it is gone).
    cleanTmpLeftovers(opts.dataDir);
    this.seal = GrantSeal.open(opts.dataDir, opts.env ?? process.env, (w) => this.warn(w));
    const opened = SettingsStore.open({ dataDir: opts.dataDir, seal: this.seal });
    this.store = opened.store;
    const audit = AuditLog.open(opts.dataDir, { maxBytes: opts.auditMaxBytes });
    this.audit = audit.log;
    this.auditGuard = new AuditGuard({
      write: (entries) => this.audit.appendMany(entries),
      writeAsync: (entries) => this.audit.appendManyAsync(entries),
      path: this.audit.path,
      dir: opts.dataDir,
      changed: () => this.emit({ type: 'status-changed' }),
    });
    this.recorder = new AuditRecorder({ log: this.audit, guard: this.auditGuard, emit: (e) => this.emit(e), listening: () => this.events.listening });
    for (const w of [...opened.warnings, ...audit.warnings]) this.warn(w);
    // Safe mode is in the status while it lasts (store/unsealed-grants.ts); say it once where this runs too.
    const unsafe = this.seal.unsafe();
    if (unsafe) opts.onWarning?.(unsafe);
    this.store.onWarning((w) => this.warn(w));
    this.sandboxes = new ServerSandbox({
      dataDir: opts.dataDir,
      env: opts.env,
      support: opts.sandbox,
      resolver: opts.resolver,
      store: this.store,
      seal: this.seal,
      protectedPaths: (projects) => this.protectedPaths(projects),
    });
    this.trust = new TrustManager({
      dataDir: opts.dataDir,
      settings: this.store,
      record: (change) => this.record(change),
      emit: (event) => this.emit(event),
      warn: (text) => this.warn(text),
      policyPath: () => this.policyPath(),
      managed: managedInputs(opts.managedPolicyPath, opts.env ?? process.env),
      resolver: opts.resolver,
      npxCache: opts.npxCache,
      seal: this.seal,
      prepared: {
        nodeModules: (name, version) => join(preparedFolder(join(opts.dataDir, 'packages'), name, version), 'node_modules'),
        install: (name, version) => this.sandboxes.packagePreparer().ensureInstalled(name, version),
      },
    });
    this.clients = new ClientConfigs({
      dataDir: opts.dataDir,
      where: () => ({ home: opts.home ?? os.homedir(), platform: process.platform, env: opts.env ?? process.env }),
      defaultProject: () => opts.clientsProject,
      servers: () => this.store.listServers(),
      addServer: (name, config, actor) => addServer(this, actor, name, config),
      removeServer: (name, actor) => removeServer(this, actor, name),
      audit: (entry) => this.recorder.append(entry),
      changed: () => this.emit({ type: 'clients-changed' }),
      command: () => countersignCommand(),
      warn: (text) => this.warn(text),
    });
    this.launchRequests = new LaunchRequests({
      record: (change) => this.record(change),
      changed: () => this.emit({ type: 'launch-requests-changed' }),
    });
    this.pending = new PendingQueue({
      progressIntervalMs: opts.progressIntervalMs,
      onAdded: (call) => this.emit({ type: 'pending-added', call }),
      onRemoved: (id, why) => this.emit({ type: 'pending-removed', id, why }),
    });
    this.auditExport = new AuditExport({
      dataDir: opts.dataDir,
      source: logSource(opts.dataDir, this.audit.path),
      managed: () => this.trust.managed.current(),
      person: () => this.seal.auditExport(),
      handEdited: () => handEditedExport(this.store, this.seal),
      changed: () => this.emit({ type: 'status-changed' }),
      warn: (text) => this.warn(text),
    });
    this.auditExport.start();
    this.rules = new RuleBook({
      store: this.store,
      record: (change) => this.record(change),
      changed: () => this.emit({ type: 'rules-changed' }),
      refuse: (rule) => ruleRefusal(this.trust.managed.restrictions(), rule),
    });
    this.undo = new UndoService({
      dataDir: opts.dataDir,
      keyOf: () => this.seal.derivedKey('undo-index'),
      settings: () => this.effectiveSettings(),
      record: (change) => this.record(change),
      entries: () => this.audit.query({}),
      afterKept: opts.afterSnapshotKept ?? snapshotPauseHook(opts.env ?? process.env),
    });
    this.gate = new CallGate({
      pending: this.pending,
      isTrusted: (s) => this.store.isTrusted(s),
      rules: () => rulesInForce(this.rules.list(), this.trust.managed.restrictions()),
      addRule: (server, tool, actor, extra) => this.rules.add(server, tool, extra ?? {}, actor),
      refuse: () => this.auditGuard.refusal(),
      settings: () => this.effectiveSettings(),
      paused: () => this.paused,
      history: (key) => this.sessions.history(key),
      // Every call is logged before its answer goes out, by group commit (no synchronous write on the call path).
      audit: (entry) => this.recorder.calls.push(entry),
      auditNow: (entry) => this.recorder.append(entry),
      expectAudit: () => this.recorder.calls.expect(),
      trust: this.trust,
      listings: () => this.lastTools,
      protectScope: (server) => this.scopes.get(server),
      onLocalRead: (clientKey) => this.sessions.endLocalReadLeases(clientKey),
      patience: new ClientPatience(),
      inline: this.inlineApproval,
      previewUrl: () => this.endpoints.httpUrl,
      limitsOf: (session) => this.sessions.limitsInForce(session.id),
      home: () => opts.home ?? os.homedir(),
      snapshot: (ctx) =>
        opts.snapshots === false
          ? Promise.resolve({ settle: async () => undefined })
          : this.undo.beforeForward({
              server: ctx.session.serverName,
              tool: ctx.toolName,
              arguments: ctx.arguments,
              client: ctx.session.clientInfo?.name,
              clientKey: ctx.session.clientKey,
              session: ctx.session.id,
            }),
    });
  }

  /** What sandbox works here (probed on first use, then kept). */
  sandbox(): Promise<SandboxSupport> {
    return this.sandboxes.support();
  }

  /** What no sandbox may show of this server's start (upstream/sandbox/server-sandbox.ts). */
  sandboxHide(config: ServerConfig | undefined): HideSpec {
    return this.sandboxes.hide(config);
  }

  /** Every running process of a server, by session. */
  runningLimits(server: string): LimitsInForce[] {
    return this.sessions.runningLimits(server);
  }

  /** The API as one surface sees it: every change made through it is logged with `actor`. */
  apiFor(actor: Actor): CountersignApi {
    return new BrokerApi(this, actor);
  }

  /** Calls refused before they could be decided (protocol/refused-calls.ts): each is logged. */
  logRefused(server: string, client: string | undefined, calls: RefusedCall[]): void {
    this.recorder.logRefused(server, client, calls);
  }

  /** Writes a change of state to the audit log. */
  record(change: Change): void {
    this.recorder.record(change);
  }

  warn(text: string): void {
    this.warnings.push(text);
    this.opts.onWarning?.(text);
    this.emit({ type: 'status-changed' });
  }

  emit(event: BrokerEvent): void {
    this.events.emit(event);
  }

  subscribe(listener: (event: BrokerEvent) => void): () => void {
    return this.events.subscribe(listener);
  }

  /** The settings in effect: the policy path is the one the person set (sealed), not whatever settings.json says. */
  private settingsAsSet(): Settings {
    const { policyPath: _inFile, ...s } = this.store.getSettings();
    const policyPath = this.seal.policyPath();
    return {
      ...s,
      ...(policyPath ? { policyPath } : {}),
      ...(this.opts.approvalTimeoutSeconds ? { approvalTimeoutSeconds: this.opts.approvalTimeoutSeconds } : {}),
    };
  }

  /** The settings in effect, with the managed policy's caps applied (the longest approval wait). */
  effectiveSettings(): Settings {
    const s = this.settingsAsSet();
    return { ...s, approvalTimeoutSeconds: cappedTimeout(s.approvalTimeoutSeconds, this.trust.managed.restrictions()) };
  }

  /** Countersign's own files and the clients' configs: what self-protection guards. */
  protectedPaths(projects: string[] = []): ProtectedPath[] {
    const more = [...this.seal.protectedPaths(), ...(this.opts.protectedPaths?.() ?? [])];
    return protectedPaths({ dataDir: this.opts.dataDir, policy: this.policyPath(), where: this.clients.where(), more }, projects);
  }

  /** The user policy file in effect: sealed as the person's choice, or COUNTERSIGN_POLICY (policy/policy-path.ts). */
  policyChoice(): PolicyPathChoice {
    return policyPathChoice(this.opts.env ?? process.env, this.store, this.seal);
  }

  private policyPath(): string | undefined {
    return this.policyChoice().path;
  }

  setEndpoints(endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'>): void {
    this.endpoints = endpoints;
  }

  /** What the HTTP endpoint holds open, for the status. */
  httpSessions?: () => NonNullable<BrokerStatus['httpSessions']>;

  setHttpSessions(count: () => NonNullable<BrokerStatus['httpSessions']>): void {
    this.httpSessions = count;
  }

  /** Attaches a client connection to a new upstream session. Refuses unknown servers. */
  async openSession(serverName: string, downstream: MessageTransport, clientKey: string, fills?: FillValues): Promise<RelaySession> {
    const config = await startableConfig(this, serverName, clientKey, fills);
    const common = this.sessionEvents.forSession(serverName, clientKey);
    const id = randomUUID();
    // An HTTP session's results pass as their own bytes when nothing in them is to be changed.
    const bytes = takesByteAnswers(downstream) ? downstream : undefined;
    const lane = bytes ? resultLane(() => session.bytes, bytes) : undefined;
    const session: RelaySession = new RelaySession(
      serverName,
      clientKey,
      downstream,
      () => this.upstreamFor(serverName, config, id, lane),
      {
        decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
        onToolsListed: (_s, tools) => common.onListed(tools),
        onServerRequest: (s, request, calls, declined) =>
          this.recorder.append(serverRequestEntry(serverName, s.clientInfo?.name, request.method, request.params, calls, declined)),
        refuseImitation: (s) => this.inlineApproval.isOn(s.clientInfo?.name),
        onInitialized: (_s, result) => common.onInitialized(result),
        rewriteToolsList: (_s, tools) => common.rewrite(tools),
        onClosed: (s) => common.onClosed(s),
        upstreamTimeoutMs: () => this.upstreamTimeoutMs(),
        onRefused: (s, call) => this.logRefused(serverName, s.clientInfo?.name, [call]),
        // And an allowed call goes to the server as the client's own bytes, likewise.
        requestLine: bytes
          ? (request, upId) => {
              const body = bytes.takeRequestBytes(request);
              return body && requestLine(body, upId);
            }
          : undefined,
      },
      id,
    );
    this.sessions.add(session);
    await session.start();
    this.emit({ type: 'servers-changed' });
    return session;
  }

  /**
   * Relay mode: `connect` runs the session itself and this broker starts the server with `connect`'s
   * data connection as its stdio, so the client's messages take one hop less. Decisions, records and
   * the log stay here. Undefined when relay mode does not apply (remote servers; Windows named pipes).
   */
  async openBrokerHalf(serverName: string, channel: ControlChannel, clientKey: string, fills?: FillValues): Promise<BrokerHalf | undefined> {
    const config = await startableConfig(this, serverName, clientKey, fills);
    if ('url' in config || process.platform === 'win32') return undefined;
    const common = this.sessionEvents.forSession(serverName, clientKey);
    const session: BrokerHalf = new BrokerHalf(randomUUID(), serverName, clientKey, channel, {
      spec: config,
      sandbox: this.sandboxes.optionsFor(serverName, config),
      decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
      upstreamTimeoutMs: () => this.upstreamTimeoutMs(),
      leaseEpoch: () => this.events.leaseEpoch,
      onInitialized: common.onInitialized,
      onListed: common.onListed,
      rewrite: common.rewrite,
      audit: (entry) => this.recorder.append(entry),
      auditCall: (entry) => this.recorder.calls.later(entry),
      batchAudit: (fn) => this.recorder.batch(fn),
      inlineApprovalOn: (client) => this.inlineApproval.isOn(client),
      onServerStderr: (text) => this.opts.onServerStderr?.(serverName, text),
      onServerExit: (exit) => this.sessionEvents.serverExited(serverName, exit),
      warn: (text) => this.warn(text),
      onClosed: common.onClosed,
    });
    this.sessions.add(session);
    this.emit({ type: 'servers-changed' });
    return session;
  }

  /** A relay-mode data connection: false when its token names no session waiting for one. */
  attachRemote(token: string, socket: Socket): boolean {
    return this.sessions.attachData(token, socket);
  }

  /** A relay-mode report connection: false when its token names no session waiting for one. */
  attachReports(token: string, socket: Socket): boolean {
    return this.sessions.attachReports(token, socket);
  }

  /** Takes the reports every `connect` has written so far (before the log is read). */
  async drainReports(): Promise<void> {
    await this.sessions.drainReports();
  }

  private upstreamTimeoutMs(): number {
    return this.store.getSettings().upstreamTimeoutSeconds * 1000;
  }

  private upstreamFor(name: string, config: ServerConfig, sessionId: string, takeLine?: (line: Buffer) => boolean): MessageTransport {
    return startUpstream(name, config, {
      injected: (server, c) => this.opts.upstream?.(server, c),
      sandbox: (server, c) => this.sandboxes.optionsFor(server, c),
      onStderr: (server, text) => this.opts.onServerStderr?.(server, text),
      onExit: (server, exit) => this.sessionEvents.serverExited(server, exit),
      started: (limits) => this.sessions.setRunning(sessionId, limits),
      takeLine,
    });
  }

  /** Starts the server briefly (through the relay) to learn its identity and tools. */
  async probe(name: string): Promise<ToolDefinition[]> {
    const transport = new ProbeTransport();
    const session = await this.openSession(name, transport, `probe:${randomUUID()}`);
    try {
      await probeTools(transport, this.store.getSettings().upstreamTimeoutSeconds * 1000);
    } finally {
      await session.close('probe done');
    }
    const tools = this.lastTools.get(name);
    if (!tools) throw new Error(`'${name}' listed no tools`);
    return tools;
  }

  requireServer(name: string): ServerConfig {
    const config = this.store.getServer(name);
    if (!config) throw new UnknownServerError(name, Object.keys(this.store.listServers()));
    return config;
  }

  /** Tells every client of a server to list its tools again. */
  notifyToolsChanged(name: string): void {
    this.sessions.notifyToolsChanged(name);
  }

  /** Open client sessions of one server. */
  sessionsOf(name: string): number {
    return this.sessions.of(name).length;
  }

  async closeSessionsOf(name: string, why: string): Promise<void> {
    await this.sessions.closeAll(why, this.sessions.of(name));
  }

  async close(): Promise<void> {
    await this.sessions.closeAll('Countersign is shutting down');
    this.launchRequests.close();
    await this.auditExport.close();
    this.recorder.calls.flush();
    this.audit.close();
    this.auditGuard.stop();
    this.events.clear();
  }
}
