// The broker: owns settings, sessions, the pending queue and the audit log, and implements the one
// typed API every UI bridge binds. No Electron here: it runs headless and under plain Node.
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { Socket } from 'node:net';
import os from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type {
  AuditEntry, BrokerEvent, BrokerStatus, CountersignApi, DecideResult, DecisionRequest, FilePreview, LogQuery,
  PendingCall, PinView, ReviewAction, ServerChanges, ServerConfig, ServerView, Settings,
} from '../../shared/api.js';
import type {
  ClientId, ClientScanOptions, ClientView, UnwrapPreview, UnwrapResult, WrapOptions, WrapPreview, WrapResult,
} from '../../shared/clients.js';
import type { Rule } from '../../shared/decision.js';
import type { ToolDefinition } from '../../shared/tool.js';
import { AuditLog, type NewAuditEntry } from './audit-log.js';
import { CallGate } from './call-gate.js';
import { ClientConfigs } from './clients/client-configs.js';
import { countersignCommand, formatWords, type CliCommand } from './cli-command.js';
import { resolveDataDir } from './data-dir.js';
import { HttpUpstream } from './http-upstream.js';
import { PendingQueue } from './pending-queue.js';
import { ProbeTransport, probeTools } from './probe-client.js';
import { RelaySession } from './relay-session.js';
import { parseServerConfig, SettingsStore, validateServerName, type BackendFactory } from './settings-store.js';
import { launchApproved } from './trust/launch-consent.js';
import { TrustManager } from './trust/trust-manager.js';
import type { VersionResolver } from './trust/version-resolver.js';
import { StdioUpstream, type ExitInfo } from './stdio-upstream.js';
import type { ControlChannel } from './relay-mode/control-channel.js';
import { RemoteSession } from './relay-mode/remote-session.js';
import type { MessageTransport } from './transport.js';
import type { SandboxSupport } from '../../shared/limits.js';
import { sandboxSupport } from './sandbox/detect.js';

export const VERSION = '0.1.0';

export interface BrokerOptions {
  dataDir: string;
  backend?: BackendFactory;
  /** Overrides the saved approval timeout (e.g. `serve --approval-timeout`). */
  approvalTimeoutSeconds?: number;
  progressIntervalMs?: number;
  auditMaxBytes?: number;
  onWarning?: (text: string) => void;
  onServerStderr?: (server: string, text: string) => void;
  /** Finds exact package versions when pinning (npm, PyPI, docker); replaceable in tests. */
  resolver?: VersionResolver;
  env?: NodeJS.ProcessEnv;
  /** The home folder whose client configs `clients`/`wrap` look at (default: this user's). */
  home?: string;
  /** What sandbox works here; probed once per process when omitted (replaceable in tests). */
  sandbox?: Promise<SandboxSupport>;
}

const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;
const QUIET_EVENTS: ReadonlySet<BrokerEvent['type']> = new Set(['pending-added', 'pending-removed', 'log-appended', 'clients-changed']);

/** A client session as the broker tracks it: relayed here, or run by `connect` in relay mode. */
interface BrokerSession {
  readonly serverName: string;
  readonly clientKey: string;
  notifyToolsChanged(): void;
  close(why: string): Promise<void>;
}

export class Broker implements CountersignApi {
  readonly store: SettingsStore;
  readonly audit: AuditLog;
  readonly pending: PendingQueue;
  readonly trust: TrustManager;
  /** MCP clients' config files: list, wrap, unwrap. */
  readonly clients: ClientConfigs;
  private readonly gate: CallGate;
  private readonly sessions = new Set<BrokerSession>();
  /** Relay-mode sessions waiting for their data connection, by attach token. */
  private readonly attaching = new Map<string, RemoteSession>();
  /** Bumped whenever `connect` leases are revoked. */
  private leaseEpoch = 0;
  private readonly histories = new Map<string, { readLocalData: boolean; sessions: number }>();
  private readonly listeners = new Set<(e: BrokerEvent) => void>();
  private readonly lastTools = new Map<string, ToolDefinition[]>();
  private readonly lastErrors = new Map<string, string>();
  private readonly warnings: string[] = [];
  private paused = false;
  private endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'> = {};

  constructor(private readonly opts: BrokerOptions) {
    const opened = SettingsStore.open({ dataDir: opts.dataDir, backend: opts.backend });
    this.store = opened.store;
    const audit = AuditLog.open(opts.dataDir, { maxBytes: opts.auditMaxBytes });
    this.audit = audit.log;
    for (const w of [...opened.warnings, ...audit.warnings]) this.warn(w);
    this.store.onWarning((w) => this.warn(w));
    this.trust = new TrustManager({
      dataDir: opts.dataDir,
      settings: this.store,
      audit: (entry) => this.appendAudit(entry),
      emit: (event) => this.emit(event),
      warn: (text) => this.warn(text),
      policyPath: () => (opts.env ?? process.env).COUNTERSIGN_POLICY || this.store.getSettings().policyPath,
      resolver: opts.resolver,
    });
    this.clients = new ClientConfigs({
      dataDir: opts.dataDir,
      where: () => ({ home: opts.home ?? os.homedir(), platform: process.platform, env: opts.env ?? process.env }),
      servers: () => this.store.listServers(),
      addServer: (name, config) => this.addServer(name, config),
      removeServer: (name) => this.removeServer(name),
      audit: (entry) => this.appendAudit(entry),
      changed: () => this.emit({ type: 'clients-changed' }),
      command: () => countersignCommand(),
      warn: (text) => this.warn(text),
    });
    this.pending = new PendingQueue({
      progressIntervalMs: opts.progressIntervalMs,
      onAdded: (call) => this.emit({ type: 'pending-added', call }),
      onRemoved: (id, why) => this.emit({ type: 'pending-removed', id, why }),
    });
    this.gate = new CallGate({
      pending: this.pending,
      isTrusted: (s) => this.store.isTrusted(s),
      rules: () => this.store.listRules(),
      addRule: (server, tool) => {
        this.store.addRule(server, tool);
        this.emit({ type: 'rules-changed' });
      },
      settings: () => this.effectiveSettings(),
      paused: () => this.paused,
      history: (key) => this.history(key),
      audit: (entry) => this.appendAudit(entry),
      trust: this.trust,
      listings: () => this.lastTools,
      onLocalRead: (clientKey) => this.endLocalReadLeases(clientKey),
    });
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

  private writeAudit(entries: NewAuditEntry[]): void {
    const written = this.audit.appendMany(entries);
    if (this.listeners.size) for (const entry of written) this.emit({ type: 'log-appended', entry });
  }

  private warn(text: string): void {
    this.warnings.push(text);
    this.opts.onWarning?.(text);
    this.emit({ type: 'status-changed' });
  }

  private emit(event: BrokerEvent): void {
    // Anything but the queue and the log may change a decision: `connect` must ask again.
    if (!QUIET_EVENTS.has(event.type)) this.revokeLeases();
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // One broken listener must not stop the others.
      }
    }
  }

  private history(key: string): { readLocalData: boolean; sessions: number } {
    let h = this.histories.get(key);
    if (!h) {
      h = { readLocalData: false, sessions: 0 };
      this.histories.set(key, h);
    }
    return h;
  }

  private effectiveSettings(): Settings {
    const s = this.store.getSettings();
    return this.opts.approvalTimeoutSeconds ? { ...s, approvalTimeoutSeconds: this.opts.approvalTimeoutSeconds } : s;
  }

  /** Every `connect` of this client has dropped its leases given before a local read (or is closed). */
  private async endLocalReadLeases(clientKey: string): Promise<void> {
    const sessions = [...this.sessions].filter((s): s is RemoteSession => s instanceof RemoteSession && s.clientKey === clientKey);
    await Promise.all(sessions.map((s) => s.revokeConfirmed()));
  }

  private revokeLeases(): void {
    this.leaseEpoch += 1;
    for (const s of this.sessions) if (s instanceof RemoteSession) s.revoke();
  }

  setEndpoints(endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'>): void {
    this.endpoints = endpoints;
  }

  /** Attaches a client connection to a new upstream session. Refuses unknown servers. */
  async openSession(serverName: string, downstream: MessageTransport, clientKey: string): Promise<RelaySession> {
    const config = this.startable(serverName);
    const common = this.sessionEvents(serverName, clientKey);
    const session = new RelaySession(serverName, clientKey, downstream, () => this.upstreamFor(serverName, config), {
      decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
      onToolsListed: (_s, tools) => common.onListed(tools),
      onInitialized: (_s, result) => common.onInitialized(result),
      rewriteToolsList: (_s, tools) => common.rewrite(tools),
      onClosed: (s) => common.onClosed(s),
      upstreamTimeoutMs: () => this.upstreamTimeoutMs(),
    }, randomUUID());
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
  openRemoteSession(serverName: string, channel: ControlChannel, clientKey: string): RemoteSession | undefined {
    const config = this.startable(serverName);
    if ('url' in config || process.platform === 'win32') return undefined;
    const common = this.sessionEvents(serverName, clientKey);
    const session: RemoteSession = new RemoteSession(randomUUID(), serverName, clientKey, channel, {
      spec: config,
      sandbox: { support: this.sandbox() },
      decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
      upstreamTimeoutMs: () => this.upstreamTimeoutMs(),
      leaseEpoch: () => this.leaseEpoch,
      onInitialized: common.onInitialized,
      onListed: common.onListed,
      rewrite: common.rewrite,
      audit: (entry) => this.appendAudit(entry),
      batchAudit: (fn) => this.batchAudit(fn),
      onServerStderr: (text) => this.opts.onServerStderr?.(serverName, text),
      onServerExit: (exit) => this.serverExited(serverName, exit),
      warn: (text) => this.warn(text),
      onClosed: (s) => {
        this.attaching.delete(s.attachToken);
        common.onClosed(s);
      },
    });
    this.sessions.add(session);
    this.attaching.set(session.attachToken, session);
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

  /** The server's config, when it exists and may start now. */
  private startable(serverName: string): ServerConfig {
    const config = this.store.getServer(serverName);
    if (!config) throw new UnknownServerError(serverName, Object.keys(this.store.listServers()));
    this.trust.assertCanStart(serverName, config);
    return config;
  }

  /** What every session reports to the broker, wherever it runs. */
  private sessionEvents(serverName: string, clientKey: string) {
    const history = this.history(clientKey);
    history.sessions += 1;
    return {
      onListed: (tools: ToolDefinition[]): void => {
        this.lastTools.set(serverName, tools);
        this.trust.onListing(serverName, tools);
        this.emit({ type: 'servers-changed' });
      },
      onInitialized: (result: Record<string, unknown>): void => this.trust.onInitialized(serverName, result),
      rewrite: (tools: ToolDefinition[]): ToolDefinition[] | undefined => this.trust.filterForClient(serverName, tools),
      onClosed: (s: BrokerSession): void => {
        this.sessions.delete(s);
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

  private upstreamFor(name: string, config: ServerConfig): MessageTransport {
    if ('url' in config) return new HttpUpstream(config.url, config.headers);
    return new StdioUpstream(config, {
      sandbox: { support: this.sandbox() },
      onStderr: (text) => this.opts.onServerStderr?.(name, text),
      onExit: (exit) => this.serverExited(name, exit),
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  async setPaused(paused: boolean): Promise<void> {
    this.paused = paused;
    this.emit({ type: 'status-changed' });
  }

  /** Starts the server briefly (through the relay) to learn its identity and tools. */
  private async probe(name: string): Promise<ToolDefinition[]> {
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

  private requireServer(name: string): ServerConfig {
    const config = this.store.getServer(name);
    if (!config) throw new UnknownServerError(name, Object.keys(this.store.listServers()));
    return config;
  }

  /** Tells every client of a server to list its tools again. */
  private notifyToolsChanged(name: string): void {
    for (const s of this.sessions) if (s.serverName === name) s.notifyToolsChanged();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.sessions].map((s) => s.close('Countersign is shutting down')));
    this.listeners.clear();
  }

  // ---- CountersignApi ----

  /** What sandbox works here (probed on first use, then kept). */
  private sandbox(): Promise<SandboxSupport> {
    return this.opts.sandbox ?? sandboxSupport();
  }

  async getStatus(): Promise<BrokerStatus> {
    return {
      sandbox: await this.sandbox(),
      version: VERSION,
      dataDir: this.opts.dataDir,
      warnings: [...this.warnings],
      ...this.endpoints,
      ...connectLaunch(this.opts.dataDir, this.opts.env ?? process.env),
      paused: this.paused,
    };
  }

  async listPending(): Promise<PendingCall[]> {
    return this.pending.list();
  }

  async decide(id: string, decision: DecisionRequest): Promise<DecideResult> {
    const call = this.pending.get(id);
    if (!call || !this.pending.decide(id, decision)) return { ok: false, error: 'not-pending' };
    const untrustedGrant = !call.serverTrusted && (decision.kind === 'allow-session' || decision.kind === 'always-allow');
    return {
      ok: true,
      forwarded: decision.kind !== 'deny',
      note: untrustedGrant ? `'${call.server}' is not trusted: this call runs, but later calls still ask until you trust the server.` : undefined,
    };
  }

  async listServers(): Promise<ServerView[]> {
    const configs = this.store.listServers();
    return Object.entries(configs).map(([name, config]) => {
      const sessions = [...this.sessions].filter((s) => s.serverName === name).length;
      const { running: _running, ...trust } = this.trust.serverView(name, config, this.lastTools.get(name) ?? [], this.lastTools);
      return {
        name,
        config: redactConfig(config),
        trusted: this.store.isTrusted(name),
        sessions,
        lastError: this.lastErrors.get(name),
        ...trust,
        status: trust.status === 'idle' && sessions > 0 ? 'running' : trust.status,
      };
    });
  }

  async addServer(name: string, config: ServerConfig): Promise<void> {
    this.store.addServer(name, config);
    this.emit({ type: 'servers-changed' });
  }

  async removeServer(name: string): Promise<void> {
    this.store.removeServer(name);
    this.trust.forget(name);
    this.lastTools.delete(name);
    await Promise.allSettled([...this.sessions].filter((s) => s.serverName === name).map((s) => s.close('server removed')));
    this.emit({ type: 'servers-changed' });
    this.emit({ type: 'rules-changed' });
  }

  async setTrust(name: string, trusted: boolean): Promise<void> {
    const config = this.requireServer(name);
    let tools = this.lastTools.get(name);
    // Trust is granted to a recorded state: learn it first when no client has run the server yet
    // (only when its command may run; otherwise the first listing becomes the record).
    if (trusted && !tools && !this.trust.tracker.hasRecord(name) && launchApproved(config, this.trust.store.get(name))) {
      tools = await this.probe(name).catch(() => undefined);
    }
    this.store.setTrusted(name, trusted);
    this.trust.onTrust(name, trusted, tools);
    this.emit({ type: 'servers-changed' });
  }

  async listRules(): Promise<Rule[]> {
    return this.store.listRules();
  }

  async removeRule(id: string): Promise<void> {
    this.store.removeRule(id);
    this.emit({ type: 'rules-changed' });
  }

  async getSettings(): Promise<Settings> {
    return this.effectiveSettings();
  }

  async updateSettings(patch: Partial<Settings>): Promise<Settings> {
    this.store.updateSettings(patch);
    if (patch.approvalTimeoutSeconds !== undefined) delete this.opts.approvalTimeoutSeconds;
    this.emit({ type: 'settings-changed' });
    return this.effectiveSettings();
  }

  async queryLog(query: LogQuery): Promise<AuditEntry[]> {
    return this.audit.read(query);
  }

  async listChanges(): Promise<ServerChanges[]> {
    return this.trust.listChanges(this.lastTools);
  }

  async reviewChanges(server: string, action: ReviewAction, tools?: string[]): Promise<void> {
    this.requireServer(server);
    const decided = this.trust.review(server, action, tools);
    if (action === 'accept' && decided.length) this.notifyToolsChanged(server);
  }

  async pinServer(name: string): Promise<PinView> {
    const config = this.requireServer(name);
    const tools = this.lastTools.get(name) ?? (await this.probe(name));
    const { pin, config: rewritten } = await this.trust.pin(name, config, tools);
    if (rewritten) this.store.updateServerConfig(name, rewritten);
    return pin;
  }

  async unpinServer(name: string): Promise<void> {
    this.requireServer(name);
    this.trust.unpin(name);
  }

  async approveLaunch(name: string): Promise<void> {
    this.trust.approveLaunch(name, this.requireServer(name));
    this.emit({ type: 'servers-changed' });
  }

  async importServers(input: Record<string, unknown>): Promise<{ added: string[]; skipped: Array<{ name: string; why: string }> }> {
    // Accept a whole client config ({ mcpServers: {...} }) or just its mcpServers object.
    const servers = typeof input.mcpServers === 'object' && input.mcpServers !== null ? (input.mcpServers as Record<string, unknown>) : input;
    const added: string[] = [];
    const skipped: Array<{ name: string; why: string }> = [];
    const existing = this.store.listServers();
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
        // Client configs carry extra keys (type, disabled…): keep only the launch fields.
        const r = (raw ?? {}) as Record<string, unknown>;
        const picked = 'url' in r ? { url: r.url, headers: r.headers } : { command: r.command, args: r.args, env: r.env, cwd: r.cwd };
        this.store.addServer(name, parseServerConfig(JSON.parse(JSON.stringify(picked))));
        added.push(name);
      } catch (err) {
        skipped.push({ name, why: (err as Error).message });
      }
    }
    if (added.length) this.emit({ type: 'servers-changed' });
    return { added, skipped };
  }

  async readFileForPreview(path: string): Promise<FilePreview> {
    // Only files a pending call names: the UI API is not a general file reader.
    const named = this.pending.list().some((c) => containsString(c.arguments, path));
    if (!named) return { exists: false, refused: 'No pending call names this path.' };
    if (!isAbsolute(path)) return { exists: false, refused: 'The path is relative, so Countersign cannot tell which file the server would write.' };
    try {
      const st = await stat(path);
      if (!st.isFile()) return { exists: true, refused: 'The path is not a regular file.' };
      if (st.size > MAX_PREVIEW_BYTES) return { exists: true, tooLarge: true };
      const bytes = await readFile(path);
      if (bytes.subarray(0, 8192).includes(0)) return { exists: true, binary: true };
      return { exists: true, content: bytes.toString('utf8') };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
      return { exists: false, refused: (err as Error).message };
    }
  }

  listClients(opts?: ClientScanOptions): Promise<ClientView[]> {
    return this.clients.listClients(opts);
  }

  previewWrap(client: ClientId, opts: WrapOptions): Promise<WrapPreview> {
    return this.clients.previewWrap(client, opts);
  }

  wrapClient(client: ClientId, opts: WrapOptions, planHash: string): Promise<WrapResult> {
    return this.clients.wrapClient(client, opts, planHash);
  }

  previewUnwrap(client: ClientId, opts: ClientScanOptions): Promise<UnwrapPreview> {
    return this.clients.previewUnwrap(client, opts);
  }

  unwrapClient(client: ClientId, opts: ClientScanOptions, planHash?: string): Promise<UnwrapResult> {
    return this.clients.unwrapClient(client, opts, planHash);
  }

  subscribe(listener: (event: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
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

function containsString(value: unknown, wanted: string, depth = 0): boolean {
  if (typeof value === 'string') return value === wanted;
  if (depth > 32 || !value || typeof value !== 'object') return false;
  return Object.values(value).some((v) => containsString(v, wanted, depth + 1));
}

/** Header and env values can hold secrets: the UI sees their names, not their values. */
function redactConfig(config: ServerConfig): ServerConfig {
  if ('url' in config) {
    return { url: config.url, headers: config.headers ? Object.fromEntries(Object.keys(config.headers).map((k) => [k, '••••'])) : undefined };
  }
  return { ...config, env: config.env ? Object.fromEntries(Object.keys(config.env).map((k) => [k, '••••'])) : undefined };
}
