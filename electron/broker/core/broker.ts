// The broker: owns settings, sessions, the pending queue and the audit log. Each surface (browser UI,
// desktop app, CLI) gets the one typed API from `apiFor(actor)` (broker-api.ts), so every change takes
// the same path and is logged with who made it. No Electron here: it runs headless and under plain Node.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import os from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Actor, AuditEntry, BrokerEvent, BrokerStatus, CountersignApi, ServerConfig, Settings } from '../../../shared/api.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import { AuditLog, type NewAuditEntry } from '../audit/audit-log.js';
import { AuditBatch } from '../audit/audit-batch.js';
import { BrokerApi } from './broker-api.js';
import { CallGate } from '../calls/call-gate.js';
import { RuleBook } from '../calls/rule-book.js';
import { ClientPatience } from '../calls/client-patience.js';
import { InlineApprovalSettings } from '../calls/inline-approval.js';
import { changeEntry, type Change } from '../audit/change-entry.js';
import { knownClientConfigs } from '../clients/catalogue.js';
import { ClientConfigs } from '../clients/client-configs.js';
import { cliPrograms, countersignCommand } from './cli-command.js';
import { HttpUpstream } from '../upstream/url-upstream.js';
import { PendingQueue } from '../calls/pending-queue.js';
import { reportsSocketPath, socketPath } from '../store/data-dir.js';
import { argumentFolders, scopeFor, type ProtectedPath, type ProtectScope } from '../checks/self-protection.js';
import { ProbeTransport, probeTools } from '../upstream/probe-client.js';
import { RelaySession } from '../relay/relay-session.js';
import { serverRequestEntry } from '../relay/protocol/server-requests.js';
import { refusedCallEntry, type RefusedCall } from '../relay/protocol/refused-calls.js';
import { policyPathChoice, type PolicyPathChoice } from '../trust/policy-path.js';
import { SettingsStore } from '../store/settings-store.js';
import { GrantSeal } from '../store/grant-seal.js';
import { cleanTmpLeftovers } from '../store/tmp-cleanup.js';
import { AuditGuard } from '../audit/audit-guard.js';
import { TrustManager } from '../trust/trust-manager.js';
import { LaunchRequests } from '../trust/launch-requests.js';
import { LaunchConsentError, launchView } from '../trust/launch-consent.js';
import type { VersionResolver } from '../trust/version-resolver.js';
import { StdioUpstream, type ExitInfo } from '../upstream/stdio-upstream.js';
import type { ControlChannel } from '../relay-mode/control-channel.js';
import { BrokerHalf } from '../relay-mode/broker/broker-half.js';
import { takesByteAnswers, type MessageTransport } from '../wire/transport.js';
import { resultLane } from '../http/result-lane.js';
import { requestLine } from '../http/request-lane.js';
import type { SandboxSupport } from '../../../shared/limits.js';
import { sandboxSupport } from '../upstream/sandbox/detect.js';
import type { LimitsInForce } from '../../../shared/enforced-limits.js';
import { NpmPreparer, preparedFolder } from '../upstream/sandbox/package-prep.js';
import type { HideSpec } from '../upstream/sandbox/hidden-paths.js';
import type { SandboxOptions } from '../upstream/server-process.js';
import { assertLimitsEnforceable } from '../trust/server-limits.js';
import { defaultKeyDir } from '../store/key-vault.js';
import { runsWithoutLimits } from '../trust/run-without-limits.js';
import { StartTimes } from '../doctor/slow-start.js';

export { VERSION } from './broker-api.js';

export interface BrokerOptions {
  dataDir: string;
  /** Overrides the saved approval timeout (e.g. `serve --approval-timeout`). */
  approvalTimeoutSeconds?: number;
  progressIntervalMs?: number;
  auditMaxBytes?: number;
  onWarning?: (text: string) => void;
  onServerStderr?: (server: string, text: string) => void;
  /** npm's `_npx` cache, where pinned npx packages are looked for (default: npm's own). */
  npxCache?: string;
  /** Finds exact package versions when pinning (npm, PyPI, docker); replaceable in tests. */
  resolver?: VersionResolver;
  env?: NodeJS.ProcessEnv;
  /**
   * Starts a server's transport instead of spawning its command (tests: real in-process MCP servers over
   * linked transports). Launch consent, pins and policy are checked before it is asked, as for a command.
   */
  upstream?: (name: string, config: ServerConfig) => MessageTransport | undefined;
  /**
   * More files no rule, lease, allowance or trust may let a call touch without the person (clients'
   * configs, the seal key): added to the data dir, the team policy file and the socket.
   */
  protectedPaths?: () => ProtectedPath[];
  /** The home folder whose client configs `clients`/`wrap` look at (default: this user's). */
  home?: string;
  /** A project folder whose client configs (.vscode/mcp.json…) the Clients view shows when asked for none: where `serve` started. */
  clientsProject?: string;
  /** What sandbox works here; probed once per process when omitted (replaceable in tests). */
  sandbox?: Promise<SandboxSupport>;
  /** Milliseconds, for how long servers take to start (replaceable in tests). */
  clock?: () => number;
}

const QUIET_EVENTS: ReadonlySet<BrokerEvent['type']> = new Set(['pending-added', 'pending-removed', 'log-appended', 'clients-changed', 'launch-requests-changed']);

/** A client session as the broker tracks it: relayed here, or run by `connect` in relay mode. */
interface BrokerSession {
  readonly id: string;
  readonly serverName: string;
  readonly clientKey: string;
  notifyToolsChanged(): void;
  close(why: string): Promise<void>;
}

export class Broker {
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
  private readonly gate: CallGate;
  private readonly sessions = new Set<BrokerSession>();
  /** Relay-mode sessions waiting for their data connection, by attach token. */
  private readonly attaching = new Map<string, BrokerHalf>();
  /** Relay-mode sessions waiting for `connect`'s report connection, by its token. */
  private readonly reporting = new Map<string, BrokerHalf>();
  /** Bumped whenever `connect` leases are revoked. */
  private leaseEpoch = 0;
  private readonly histories = new Map<string, { readLocalData: boolean; sessions: number; reads?: string[] }>();
  private readonly listeners = new Set<(e: BrokerEvent) => void>();
  /** Each server's last complete tool listing, as a client (or a probe) saw it. */
  readonly lastTools = new Map<string, ToolDefinition[]>();
  readonly lastErrors = new Map<string, string>();
  /** How long each server's last start took to answer (a note past 10 s). */
  readonly startTimes: StartTimes;
  readonly warnings: string[] = [];
  /** Each open session's server process: the limits it started under (read at every decision). */
  private readonly running = new Map<string, () => LimitsInForce | undefined>();
  private preparer?: NpmPreparer;
  paused = false;
  /** Which clients may answer pending calls in their own form (in memory: no file turns it on). */
  readonly inlineApproval = new InlineApprovalSettings();
  endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'> = {};

  constructor(readonly opts: BrokerOptions) {
    this.startTimes = new StartTimes(opts.clock);
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
    // Written before anything else touches the log, so order and reads stay as if written at once.
    this.audit.beforeAccess = () => this.callLog.flush();
    for (const w of [...opened.warnings, ...audit.warnings]) this.warn(w);
    // Safe mode is in the status while it lasts (store/unsealed-grants.ts); say it once where this runs too.
    const unsafe = this.seal.unsafe();
    if (unsafe) opts.onWarning?.(unsafe);
    this.store.onWarning((w) => this.warn(w));
    this.trust = new TrustManager({
      dataDir: opts.dataDir,
      settings: this.store,
      record: (change) => this.record(change),
      emit: (event) => this.emit(event),
      warn: (text) => this.warn(text),
      policyPath: () => this.policyPath(),
      resolver: opts.resolver,
      npxCache: opts.npxCache,
      seal: this.seal,
      prepared: {
        nodeModules: (name, version) => join(preparedFolder(join(opts.dataDir, 'packages'), name, version), 'node_modules'),
        install: (name, version) => this.packagePreparer().ensureInstalled(name, version),
      },
    });
    this.clients = new ClientConfigs({
      dataDir: opts.dataDir,
      where: () => ({ home: opts.home ?? os.homedir(), platform: process.platform, env: opts.env ?? process.env }),
      defaultProject: () => opts.clientsProject,
      servers: () => this.store.listServers(),
      addServer: (name, config, actor) => this.apiFor(actor).addServer(name, config),
      removeServer: (name, actor) => this.apiFor(actor).removeServer(name),
      audit: (entry) => this.appendAudit(entry),
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
    this.rules = new RuleBook({ store: this.store, record: (change) => this.record(change), changed: () => this.emit({ type: 'rules-changed' }) });
    this.gate = new CallGate({
      pending: this.pending,
      isTrusted: (s) => this.store.isTrusted(s),
      rules: () => this.rules.list(),
      addRule: (server, tool, actor, extra) => this.rules.add(server, tool, extra ?? {}, actor),
      refuse: () => this.auditGuard.refusal(),
      settings: () => this.effectiveSettings(),
      paused: () => this.paused,
      history: (key) => this.history(key),
      // Every call is logged before its answer goes out, by group commit (no synchronous write on the call path).
      audit: (entry) => this.callLog.push(entry),
      auditNow: (entry) => this.appendAudit(entry),
      expectAudit: () => this.callLog.expect(),
      trust: this.trust,
      listings: () => this.lastTools,
      protectScope: (server) => this.protectScope(server),
      onLocalRead: (clientKey) => this.endLocalReadLeases(clientKey),
      patience: new ClientPatience(),
      inline: this.inlineApproval,
      previewUrl: () => this.endpoints.httpUrl,
      limitsOf: (session) => this.running.get(session.id)?.(),
      home: () => opts.home ?? os.homedir(),
    });
  }

  /** Every `connect` of this client has dropped its leases given before a local read (or is closed). */
  private async endLocalReadLeases(clientKey: string): Promise<void> {
    const sessions = [...this.sessions].filter((s): s is BrokerHalf => s instanceof BrokerHalf && s.clientKey === clientKey);
    await Promise.all(sessions.map((s) => s.revokeConfirmed()));
  }

  /** What sandbox works here (probed on first use, then kept). */
  sandbox(): Promise<SandboxSupport> {
    return this.opts.sandbox ?? sandboxSupport();
  }

  /**
   * How a local server starts: under its limits, with Countersign's own files hidden; an npx package
   * under limits is installed first, then run offline. Without a sandbox that can enforce its limits it
   * is refused, unless the person let this exact launch run without them (read from the stored config).
   */
  private sandboxFor(name: string, config: ServerConfig): SandboxOptions {
    const stored = this.store.getServer(name);
    return {
      support: this.sandbox(),
      limits: 'command' in config ? config.limits : undefined,
      preparer: this.packagePreparer(),
      hide: () => this.sandboxHide(config),
      allowUnenforced: !!stored && runsWithoutLimits(this.seal, name, stored),
      server: name,
    };
  }

  /**
   * What no sandbox may show: the protected paths (data folder, sockets, seal key, policy, the clients'
   * configs, those in the server's folder and in every folder it is given too) and the key folder.
   */
  sandboxHide(config: ServerConfig | undefined): HideSpec {
    const stdio = config && 'command' in config ? config : undefined;
    const fsLimit = stdio?.limits?.filesystem;
    const grants = fsLimit && fsLimit !== 'host' ? [...fsLimit.read, ...fsLimit.write] : [];
    const projects = [stdio?.cwd ?? process.cwd(), ...grants];
    return {
      paths: [...this.protectedPaths(projects), { path: defaultKeyDir(this.opts.env ?? process.env), what: "Countersign's seal key folder" }],
      lent: [join(this.opts.dataDir, 'packages')],
    };
  }

  private packagePreparer(): NpmPreparer {
    this.preparer ??= new NpmPreparer({
      root: join(this.opts.dataDir, 'packages'), support: this.sandbox(), resolve: this.opts.resolver, source: this.opts.env, hide: () => this.sandboxHide(undefined),
    });
    return this.preparer;
  }

  /** The limits the server process of one session started under (undefined: not started, or none known). */
  limitsInForce(sessionId: string): LimitsInForce | undefined {
    return this.running.get(sessionId)?.();
  }

  /** Every running process of a server, by session. */
  runningLimits(server: string): LimitsInForce[] {
    return [...this.sessions].filter((s) => s.serverName === server).map((s) => this.running.get(s.id)?.()).filter((r): r is LimitsInForce => !!r);
  }

  /** The API as one surface sees it: every change made through it is logged with `actor`. */
  apiFor(actor: Actor): CountersignApi {
    return new BrokerApi(this, actor);
  }

  /** Calls refused before they could be decided (protocol/refused-calls.ts): each is logged. */
  logRefused(server: string, client: string | undefined, calls: RefusedCall[]): void {
    for (const call of calls) this.appendAudit(refusedCallEntry(server, client, call));
  }

  /** Writes a change of state to the audit log. */
  record(change: Change): void {
    this.appendAudit(changeEntry(change));
  }

  private appendAudit(entry: NewAuditEntry): void {
    if (this.auditBatch) this.auditBatch.push(entry);
    else this.writeAudit([entry]);
  }

  /** Runs `fn`, writing the audit entries it makes together (a `connect` report holds many calls). */
  private batchAudit(fn: () => void): void {
    if (this.auditBatch) return fn();
    const batch: NewAuditEntry[] = (this.auditBatch = []);
    try {
      fn();
    } finally {
      this.auditBatch = undefined;
      if (batch.length) this.writeAudit(batch);
    }
  }

  private auditBatch?: NewAuditEntry[];

  /** Call entries, written by group commit before their answers go out (see audit-batch.ts). */
  private readonly callLog = new AuditBatch({
    prepare: () => this.audit.lookAtFile(),
    fresh: () => this.audit.hasFreshLook(),
    write: (entries) => this.auditGuard.appendAsync(entries).then((written) => this.announce(written)),
    writeNow: (entries) => this.writeAudit(entries),
  });

  /** How many of `entries` reached the disk; the rest wait in the guard (fail closed until they are written). */
  private writeAudit(entries: NewAuditEntry[]): number {
    return this.announce(this.auditGuard.append(entries));
  }

  private announce(written: AuditEntry[]): number {
    if (this.listeners.size) for (const entry of written) this.emit({ type: 'log-appended', entry });
    return written.length;
  }

  warn(text: string): void {
    this.warnings.push(text);
    this.opts.onWarning?.(text);
    this.emit({ type: 'status-changed' });
  }

  emit(event: BrokerEvent): void {
    // Anything but the queue and the log may change a decision: `connect` must ask again.
    if (!QUIET_EVENTS.has(event.type)) {
      this.revokeLeases();
      this.scopes.clear();
    }
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // One broken listener must not stop the others.
      }
    }
  }

  private history(key: string): { readLocalData: boolean; sessions: number; reads?: string[] } {
    let h = this.histories.get(key);
    if (!h) {
      h = { readLocalData: false, sessions: 0 };
      this.histories.set(key, h);
    }
    return h;
  }

  /** The settings in effect: the policy path is the one the person set (sealed), not whatever settings.json says. */
  effectiveSettings(): Settings {
    const { policyPath: _inFile, ...s } = this.store.getSettings();
    const policyPath = this.seal.policyPath();
    return {
      ...s,
      ...(policyPath ? { policyPath } : {}),
      ...(this.opts.approvalTimeoutSeconds ? { approvalTimeoutSeconds: this.opts.approvalTimeoutSeconds } : {}),
    };
  }

  private revokeLeases(): void {
    this.leaseEpoch += 1;
    for (const s of this.sessions) if (s instanceof BrokerHalf) s.revoke();
  }

  /** Countersign's own files and the clients' configs: what self-protection guards. */
  protectedPaths(projects: string[] = []): ProtectedPath[] {
    const { dataDir } = this.opts;
    const policy = this.policyPath();
    const sockets = process.platform === 'win32' ? [] : [socketPath(dataDir), reportsSocketPath(dataDir)].filter((s) => !s.startsWith(resolve(dataDir)));
    return [
      { path: dataDir, what: "Countersign's data folder" },
      ...(policy ? [{ path: policy, what: "Countersign's team policy file" }] : []),
      ...sockets.map((socket) => ({ path: socket, what: "Countersign's socket" })),
      // A client's config decides what commands it starts: a project's too (`.vscode/mcp.json`, …).
      ...knownClientConfigs(this.clients.where(), projects).map((c) => ({ path: c.path, what: `${c.client}'s MCP config` })),
      ...this.seal.protectedPaths(),
      ...(this.opts.protectedPaths?.() ?? []),
    ];
  }

  /**
   * Relative paths in a server's arguments may be read from its folder, the folders among its arguments,
   * home or Countersign's own folder. Kept a second (it is asked per call).
   */
  private protectScope(server: string): ProtectScope {
    const config = this.store.getServer(server);
    const local = config && 'command' in config ? config : undefined;
    const cwd = local?.cwd ? resolve(local.cwd) : process.cwd();
    // Keyed by what the paths come from, not by the paths: listing the clients' configs costs more than
    // a call's own check. Any change of settings clears it (emit), anything else lapses within a second.
    const key = JSON.stringify([cwd, local?.args ?? [], local?.env ?? {}]);
    const cached = this.scopes.get(key);
    if (cached && cached.until > Date.now()) return cached.scope;
    // The folders it is given: server-filesystem reads a relative path from each.
    const folders = argumentFolders(local?.args ?? [], cwd);
    // The server's folder and the folders it is given are where project configs could be written.
    const projects = [cwd, ...new Set([...(local?.args ?? []).filter((a) => isAbsolute(a)), ...folders])];
    // Naming a program that starts Countersign's CLI runs Countersign (its name is checked apart, cli-invocation.ts).
    const programs = cliPrograms().map((p) => ({ path: p, what: "Countersign's command line", runs: true as const }));
    const scope = scopeFor([...this.protectedPaths(projects), ...programs], cwd, this.opts.env ?? process.env, { folders, serverEnv: local?.env });
    if (this.scopes.size > 100) this.scopes.clear();
    this.scopes.set(key, { scope, until: Date.now() + 1000 });
    return scope;
  }

  private readonly scopes = new Map<string, { scope: ProtectScope; until: number }>();

  /** The user policy file in effect: sealed as the person's choice, or COUNTERSIGN_POLICY (trust/policy-path.ts). */
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
  async openSession(serverName: string, downstream: MessageTransport, clientKey: string): Promise<RelaySession> {
    const config = await this.startable(serverName, clientKey);
    const common = this.sessionEvents(serverName, clientKey);
    const id = randomUUID();
    // An HTTP session's results pass as their own bytes when nothing in them is to be changed.
    const bytes = takesByteAnswers(downstream) ? downstream : undefined;
    const lane = bytes ? resultLane(() => session.bytes, bytes) : undefined;
    const session: RelaySession = new RelaySession(serverName, clientKey, downstream, () => this.upstreamFor(serverName, config, id, lane), {
      decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
      onToolsListed: (_s, tools) => common.onListed(tools),
      onServerRequest: (s, request, calls, declined) => this.appendAudit(serverRequestEntry(serverName, s.clientInfo?.name, request.method, request.params, calls, declined)),
      refuseImitation: (s) => this.inlineApproval.isOn(s.clientInfo?.name),
      onInitialized: (_s, result) => common.onInitialized(result),
      rewriteToolsList: (_s, tools) => common.rewrite(tools),
      onClosed: (s) => common.onClosed(s),
      upstreamTimeoutMs: () => this.upstreamTimeoutMs(),
      onRefused: (s, call) => this.logRefused(serverName, s.clientInfo?.name, [call]),
      // And an allowed call goes to the server as the client's own bytes, likewise.
      requestLine: bytes ? (request, upId) => {
        const body = bytes.takeRequestBytes(request);
        return body && requestLine(body, upId);
      } : undefined,
    }, id);
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
  async openBrokerHalf(serverName: string, channel: ControlChannel, clientKey: string): Promise<BrokerHalf | undefined> {
    const config = await this.startable(serverName, clientKey);
    if ('url' in config || process.platform === 'win32') return undefined;
    const common = this.sessionEvents(serverName, clientKey);
    const session: BrokerHalf = new BrokerHalf(randomUUID(), serverName, clientKey, channel, {
      spec: config,
      sandbox: this.sandboxFor(serverName, config),
      decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
      upstreamTimeoutMs: () => this.upstreamTimeoutMs(),
      leaseEpoch: () => this.leaseEpoch,
      onInitialized: common.onInitialized,
      onListed: common.onListed,
      rewrite: common.rewrite,
      audit: (entry) => this.appendAudit(entry),
      auditCall: (entry) => this.callLog.later(entry),
      batchAudit: (fn) => this.batchAudit(fn),
      inlineApprovalOn: (client) => this.inlineApproval.isOn(client),
      onServerStderr: (text) => this.opts.onServerStderr?.(serverName, text),
      onServerExit: (exit) => this.serverExited(serverName, exit),
      warn: (text) => this.warn(text),
      onClosed: (s) => {
        this.attaching.delete(s.attachToken);
        this.reporting.delete(s.reportToken);
        common.onClosed(s);
      },
    });
    this.sessions.add(session);
    this.running.set(session.id, () => session.limitsInForce);
    this.attaching.set(session.attachToken, session);
    this.reporting.set(session.reportToken, session);
    this.emit({ type: 'servers-changed' });
    return session;
  }

  /** A relay-mode data connection: false when its token names no session waiting for one. */
  attachRemote(token: string, socket: Socket): boolean {
    const session = this.attaching.get(token);
    if (!session) return false;
    this.attaching.delete(token);
    session.attach(socket);
    return true;
  }

  /** A relay-mode report connection: false when its token names no session waiting for one. */
  attachReports(token: string, socket: Socket): boolean {
    const session = this.reporting.get(token);
    if (!session) return false;
    this.reporting.delete(token);
    return session.attachReports(socket);
  }

  /** Takes the reports every `connect` has written so far (before the log is read). */
  async drainReports(): Promise<void> {
    const remote = [...this.sessions].filter((s): s is BrokerHalf => s instanceof BrokerHalf);
    await Promise.all(remote.map((s) => s.drainReports()));
  }

  /** What to start for the server, when it exists and may start now (a pinned package checked first). */
  private async startable(serverName: string, clientKey: string): Promise<ServerConfig> {
    const config = this.store.getServer(serverName);
    if (!config) throw new UnknownServerError(serverName, Object.keys(this.store.listServers()));
    try {
      this.trust.assertCanStart(serverName, config);
    } catch (err) {
      // Refused for want of consent: logged, and waiting in the queue for the person.
      if (err instanceof LaunchConsentError) {
        const client = clientKey.startsWith('client:') ? clientKey.slice('client:'.length) : undefined;
        this.launchRequests.refused(serverName, launchView(config, this.trust.store.get(serverName)), err.reason, client);
      }
      throw err;
    }
    // Limits this machine cannot enforce stop it here, audited, before anything is installed or run.
    await assertLimitsEnforceable(this, serverName, config);
    const prepared = await this.trust.prepareLaunch(serverName, config);
    // A pinned package runs as node on its checked copy: with the limits its consent covers.
    return 'command' in config && 'command' in prepared ? { ...prepared, limits: config.limits } : prepared;
  }

  /** What every session reports to the broker, wherever it runs. */
  private sessionEvents(serverName: string, clientKey: string) {
    const history = this.history(clientKey);
    history.sessions += 1;
    const took = this.startTimes.begin();
    let answered = false;
    return {
      onListed: (tools: ToolDefinition[]): void => {
        this.lastTools.set(serverName, tools);
        this.trust.onListing(serverName, tools);
        this.emit({ type: 'servers-changed' });
      },
      onInitialized: (result: Record<string, unknown>): void => {
        // The first answer of this session's server: how long its start took (a note past 10 s).
        if (!answered) {
          answered = true;
          if (this.startTimes.record(serverName, took())) this.emit({ type: 'servers-changed' });
        }
        this.trust.onInitialized(serverName, result);
      },
      rewrite: (tools: ToolDefinition[]): ToolDefinition[] | undefined => this.trust.filterForClient(serverName, tools),
      onClosed: (s: BrokerSession): void => {
        this.sessions.delete(s);
        this.rules.endSession(s.id);
        this.running.delete(s.id);
        history.sessions -= 1;
        if (history.sessions <= 0) this.histories.delete(clientKey);
        this.emit({ type: 'servers-changed' });
      },
    };
  }

  private upstreamTimeoutMs(): number {
    return this.store.getSettings().upstreamTimeoutSeconds * 1000;
  }

  private serverExited(name: string, exit: ExitInfo): void {
    if (exit.code === 0) return;
    const how = exit.startError ? `could not be started (${exit.startError})` : exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;
    this.lastErrors.set(name, `${how}: ${exit.stderrTail.trim().slice(-300)}`);
    this.emit({ type: 'servers-changed' });
  }

  private upstreamFor(name: string, config: ServerConfig, sessionId: string, takeLine?: (line: Buffer) => boolean): MessageTransport {
    const injected = this.opts.upstream?.(name, config);
    if (injected) return injected;
    if ('url' in config) return new HttpUpstream(config.url, config.headers);
    const upstream = new StdioUpstream(config, {
      takeLine,
      sandbox: this.sandboxFor(name, config),
      onStderr: (text) => this.opts.onServerStderr?.(name, text),
      onExit: (exit) => this.serverExited(name, exit),
    });
    this.running.set(sessionId, () => upstream.limitsInForce);
    return upstream;
  }

  get sessionCount(): number {
    return this.sessions.size;
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
    for (const s of this.sessions) if (s.serverName === name) s.notifyToolsChanged();
  }

  /** Open client sessions of one server. */
  sessionsOf(name: string): number {
    return [...this.sessions].filter((s) => s.serverName === name).length;
  }

  async closeSessionsOf(name: string, why: string): Promise<void> {
    await Promise.allSettled([...this.sessions].filter((s) => s.serverName === name).map((s) => s.close(why)));
  }

  subscribe(listener: (event: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.sessions].map((s) => s.close('Countersign is shutting down')));
    this.launchRequests.close();
    this.callLog.flush();
    this.audit.close();
    this.auditGuard.stop();
    this.listeners.clear();
  }

}

export class UnknownServerError extends Error {
  constructor(readonly server: string, known: string[]) {
    super(
      `Countersign has no server named '${server}'. ` +
        (known.length ? `Known servers: ${known.join(', ')}.` : 'No servers are configured yet.') +
        ` Add one with: countersign servers add ${server} -- <command> [args…]`,
    );
  }
}
