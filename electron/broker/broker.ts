// The broker: owns settings, sessions, the pending queue and the audit log, and implements the one
// typed API every UI bridge binds. No Electron here: it runs headless and under plain Node.
import { randomUUID } from 'node:crypto';
import type {
  AuditEntry, BrokerEvent, BrokerStatus, CountersignApi, DecideResult, DecisionRequest, LogQuery,
  PendingCall, ServerConfig, ServerView, Settings,
} from '../../shared/api.js';
import { effectiveHints } from '../../shared/annotations.js';
import type { Rule } from '../../shared/decision.js';
import type { ToolDefinition } from '../../shared/tool.js';
import { AuditLog } from './audit-log.js';
import { CallGate } from './call-gate.js';
import { HttpUpstream } from './http-upstream.js';
import { PendingQueue } from './pending-queue.js';
import { RelaySession } from './relay-session.js';
import { SettingsStore, type BackendFactory } from './settings-store.js';
import { StdioUpstream } from './stdio-upstream.js';
import type { MessageTransport } from './transport.js';

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
}

export class Broker implements CountersignApi {
  readonly store: SettingsStore;
  readonly audit: AuditLog;
  readonly pending: PendingQueue;
  private readonly gate: CallGate;
  private readonly sessions = new Set<RelaySession>();
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
      audit: (entry) => {
        const written = this.audit.append(entry);
        this.emit({ type: 'log-appended', entry: written });
      },
    });
  }

  private warn(text: string): void {
    this.warnings.push(text);
    this.opts.onWarning?.(text);
    this.emit({ type: 'status-changed' });
  }

  private emit(event: BrokerEvent): void {
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

  setEndpoints(endpoints: Pick<BrokerStatus, 'httpUrl' | 'mcpUrlTemplate'>): void {
    this.endpoints = endpoints;
  }

  /** Attaches a client connection to a new upstream session. Refuses unknown servers. */
  async openSession(serverName: string, downstream: MessageTransport, clientKey: string): Promise<RelaySession> {
    const config = this.store.getServer(serverName);
    if (!config) throw new UnknownServerError(serverName, Object.keys(this.store.listServers()));
    const history = this.history(clientKey);
    history.sessions += 1;
    const session = new RelaySession(serverName, clientKey, downstream, () => this.upstreamFor(serverName, config), {
      decideToolCall: (ctx) => this.gate.decideToolCall(ctx),
      onToolsListed: (_s, tools) => {
        this.lastTools.set(serverName, tools);
        this.emit({ type: 'servers-changed' });
      },
      onClosed: (s) => {
        this.sessions.delete(s);
        history.sessions -= 1;
        if (history.sessions <= 0) this.histories.delete(clientKey);
        this.emit({ type: 'servers-changed' });
      },
      upstreamTimeoutMs: () => this.store.getSettings().upstreamTimeoutSeconds * 1000,
    }, randomUUID());
    this.sessions.add(session);
    await session.start();
    this.emit({ type: 'servers-changed' });
    return session;
  }

  private upstreamFor(name: string, config: ServerConfig): MessageTransport {
    if ('url' in config) return new HttpUpstream(config.url, config.headers);
    return new StdioUpstream(config, {
      onStderr: (text) => this.opts.onServerStderr?.(name, text),
      onExit: (exit) => {
        if (exit.code === 0) return;
        const how = exit.startError ? `could not be started (${exit.startError})` : exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;
        this.lastErrors.set(name, `${how}: ${exit.stderrTail.trim().slice(-300)}`);
        this.emit({ type: 'servers-changed' });
      },
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.emit({ type: 'status-changed' });
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.sessions].map((s) => s.close('Countersign is shutting down')));
    this.listeners.clear();
  }

  // ---- CountersignApi ----

  async getStatus(): Promise<BrokerStatus> {
    return {
      version: VERSION,
      dataDir: this.opts.dataDir,
      warnings: [...this.warnings],
      ...this.endpoints,
      connectCommand: 'npx countersign connect <server>',
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
      const tools = this.lastTools.get(name) ?? [];
      return {
        name,
        config: redactConfig(config),
        trusted: this.store.isTrusted(name),
        sessions: [...this.sessions].filter((s) => s.serverName === name).length,
        tools: tools.map((definition) => ({ definition, hints: effectiveHints(definition) })),
        lastError: this.lastErrors.get(name),
      };
    });
  }

  async addServer(name: string, config: ServerConfig): Promise<void> {
    this.store.addServer(name, config);
    this.emit({ type: 'servers-changed' });
  }

  async removeServer(name: string): Promise<void> {
    this.store.removeServer(name);
    this.lastTools.delete(name);
    await Promise.allSettled([...this.sessions].filter((s) => s.serverName === name).map((s) => s.close('server removed')));
    this.emit({ type: 'servers-changed' });
    this.emit({ type: 'rules-changed' });
  }

  async setTrust(name: string, trusted: boolean): Promise<void> {
    this.store.setTrusted(name, trusted);
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

/** Header and env values can hold secrets: the UI sees their names, not their values. */
function redactConfig(config: ServerConfig): ServerConfig {
  if ('url' in config) {
    return { url: config.url, headers: config.headers ? Object.fromEntries(Object.keys(config.headers).map((k) => [k, '••••'])) : undefined };
  }
  return { ...config, env: config.env ? Object.fromEntries(Object.keys(config.env).map((k) => [k, '••••'])) : undefined };
}
