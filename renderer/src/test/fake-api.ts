// An in-memory CountersignApi for component tests: the bridge boundary, so the UI above it is real.
import type { LimitsProfile } from '../../../shared/limits.js';
import type {
  AuditEntry,
  BrokerEvent,
  BrokerStatus,
  CountersignApi,
  DecideResult,
  DecisionRequest,
  FilePreview,
  InlineApprovalClient,
  LogQuery,
  PendingCall,
  PinView,
  ReviewAction,
  ReviewedTool,
  SeenServer,
  ServerChanges,
  ServerConfig,
  ServerView,
  Settings,
  SettingsPatch,
  UnsealedGrant,
  UnsealedRef,
} from '../../../shared/api';
import type { ClientId, ClientScanOptions, ClientView, UnwrapPreview, UnwrapResult, WrapOptions, WrapPreview, WrapResult } from '../../../shared/clients';
import type { Rule } from '../../../shared/decision';
import type { DoctorReport } from '../../../shared/doctor';
import type { LaunchRequest, RulePatch } from '../../../shared/api';
import type { UndoableCall, UndoPreview, UndoResult, UndoTarget } from '../../../shared/undo';
import type { EffectiveHints } from '../../../shared/tool';

export const CAUTIOUS_HINTS: EffectiveHints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
  supplied: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
};

let seq = 0;
export function makeCall(over: Partial<PendingCall> = {}): PendingCall {
  const n = ++seq;
  const createdAt = over.createdAt ?? 1_700_000_000_000 + n * 1000;
  return {
    id: `call-${n}`,
    server: 'fs',
    serverTrusted: false,
    tool: 'write_file',
    arguments: { path: '/tmp/x.txt', content: 'x' },
    reasons: [],
    hints: CAUTIOUS_HINTS,
    preview: true,
    findings: [],
    client: { name: 'test-client', version: '1.0', session: 's1' },
    createdAt,
    expiresAt: createdAt + 120_000,
    ...over,
  };
}

export function makeServer(over: Partial<ServerView> = {}): ServerView {
  return {
    name: 'fs',
    config: { command: 'node', args: ['server.js'] },
    trusted: false,
    sessions: 0,
    tools: [],
    status: 'idle',
    launch: { commandLine: ['node', 'server.js'], envNames: [], headerNames: [], hash: 'a'.repeat(64), approved: true, approvedBy: 'person' },
    pendingChanges: 0,
    ...over,
  };
}

export function makeClient(over: Partial<ClientView> = {}): ClientView {
  return {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    found: true,
    looked: ['/home/me/.config/Claude/claude_desktop_config.json'],
    canUnwrap: false,
    files: [
      {
        path: '/home/me/.config/Claude/claude_desktop_config.json',
        scope: 'user',
        format: 'json',
        servers: [
          {
            name: 'fs',
            transport: 'stdio',
            commandLine: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/me'],
            envNames: [],
            headerNames: [],
            state: 'direct',
          },
          {
            name: 'notes',
            transport: 'stdio',
            commandLine: ['npx', 'notes'],
            envNames: ['KEY'],
            headerNames: [],
            state: 'unsupported',
            note: 'wrap leaves it alone: ${KEY} is filled in by the client',
          },
        ],
      },
    ],
    ...over,
  };
}

const PLAN_HASH = 'a'.repeat(64);

export class FakeApi implements CountersignApi {
  pending: PendingCall[] = [];
  launches: LaunchRequest[] = [];
  servers: ServerView[] = [makeServer()];
  rules: Rule[] = [];
  unsealed: UnsealedGrant[] = [];
  settings: Settings = { approvalTimeoutSeconds: 120, upstreamTimeoutSeconds: 300, theme: 'system' };
  status: BrokerStatus = {
    version: '0.1.0',
    dataDir: '/data',
    warnings: [],
    httpUrl: 'http://127.0.0.1:4000',
    mcpUrlTemplate: 'http://127.0.0.1:4000/mcp/<server>',
    connectCommand: '/usr/bin/node /opt/countersign/bin/countersign.mjs connect <server>',
    connectLaunch: { command: '/usr/bin/node', args: ['/opt/countersign/bin/countersign.mjs', 'connect', '<server>'] },
    paused: false,
  };
  changes: ServerChanges[] = [];
  log: AuditEntry[] = [];
  files: Record<string, FilePreview> = {};
  inline: InlineApprovalClient[] = [];
  decideNote?: string;
  pinResult: PinView = { definitionsHash: 'abc', pinnedAt: '2026-01-01T00:00:00Z', by: 'person' };
  clients: ClientView[] = [makeClient()];
  wrapPreview?: WrapPreview;
  unwrapPreview?: UnwrapPreview;
  /** Undo: the calls listed, and the preview and result the next calls answer with. */
  undoable: UndoableCall[] = [];
  undoPreview?: UndoPreview;
  undoResult?: UndoResult;
  doctor: DoctorReport = {
    version: 1,
    countersign: '0.1.0',
    dataDir: '/data',
    checkedAt: '2026-01-01T00:00:00.000Z',
    broker: { running: true, pid: 4242, version: '0.1.0', socket: '/data/broker.sock' },
    findings: [{ area: 'broker', code: 'broker.running', level: 'ok', summary: 'A broker runs for /data (pid 4242, version 0.1.0).' }],
  };
  /** Methods that answer like an older broker: `unknown API method`. */
  unsupported = new Set<string>();
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  private readonly listeners = new Set<(e: BrokerEvent) => void>();

  emit(event: BrokerEvent): void {
    for (const l of this.listeners) l(event);
  }

  private async answer<T>(method: string, args: unknown[], value: () => T): Promise<T> {
    this.calls.push({ method, args });
    if (this.unsupported.has(method)) throw new Error(`unknown API method "${method}"`);
    return value();
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  getStatus() {
    return this.answer('getStatus', [], () => structuredClone(this.status));
  }
  listPending() {
    return this.answer('listPending', [], () => structuredClone(this.pending));
  }
  listLaunchRequests() {
    return this.answer('listLaunchRequests', [], () => structuredClone(this.launches));
  }
  decide(id: string, decision: DecisionRequest): Promise<DecideResult> {
    return this.answer('decide', [id, decision], () => {
      if (!this.pending.some((c) => c.id === id)) return { ok: false, error: 'not-pending' } as const;
      this.pending = this.pending.filter((c) => c.id !== id);
      this.emit({ type: 'pending-removed', id, why: decision.kind === 'deny' ? 'denied' : 'allowed' });
      return { ok: true, forwarded: decision.kind !== 'deny', ...(this.decideNote && { note: this.decideNote }) };
    });
  }
  listServers() {
    return this.answer('listServers', [], () => structuredClone(this.servers));
  }
  addServer(name: string, config: ServerConfig) {
    return this.answer('addServer', [name, config], () => void this.servers.push(makeServer({ name, config, status: 'needs-consent' })));
  }
  removeServer(name: string) {
    return this.answer('removeServer', [name], () => void (this.servers = this.servers.filter((s) => s.name !== name)));
  }
  setTrust(name: string, trusted: boolean, seen?: SeenServer) {
    return this.answer(
      'setTrust',
      seen ? [name, trusted, seen] : [name, trusted],
      () => void this.servers.forEach((s) => s.name === name && (s.trusted = trusted)),
    );
  }
  listRules() {
    return this.answer('listRules', [], () => structuredClone(this.rules));
  }
  removeRule(id: string) {
    return this.answer('removeRule', [id], () => void (this.rules = this.rules.filter((r) => r.id !== id)));
  }
  updateRule(id: string, patch: RulePatch) {
    return this.answer('updateRule', [id, patch], () => {
      const rule = this.rules.find((r) => r.id === id)!;
      if (patch.expiresAt !== undefined) {
        if (patch.expiresAt === null) delete rule.expiresAt;
        else rule.expiresAt = patch.expiresAt;
      }
      if (patch.coversExfiltration !== undefined) rule.coversExfiltration = patch.coversExfiltration || undefined;
      return structuredClone(rule);
    });
  }
  getSettings() {
    return this.answer('getSettings', [], () => ({ ...this.settings }));
  }
  updateSettings(patch: SettingsPatch) {
    return this.answer('updateSettings', [patch], () => {
      const next: Record<string, unknown> = { ...this.settings, ...patch };
      if (next.policyPath === null) delete next.policyPath; // null removes the team policy
      if (next.auditExport === null) delete next.auditExport; // and the audit export
      return (this.settings = next as Settings);
    });
  }
  queryLog(query: LogQuery) {
    return this.answer('queryLog', [query], () => structuredClone(this.log));
  }
  listChanges() {
    return this.answer('listChanges', [], () => structuredClone(this.changes));
  }
  reviewChanges(server: string, action: ReviewAction, tools?: ReviewedTool[], identityHash?: string) {
    const args = [server, action, ...(tools ? [tools] : []), ...(identityHash ? [identityHash] : [])];
    return this.answer('reviewChanges', args, () => void (this.changes = this.changes.filter((c) => c.server !== server)));
  }
  pinServer(name: string, seen: SeenServer) {
    return this.answer('pinServer', [name, seen], () => this.pinResult);
  }
  unpinServer(name: string) {
    return this.answer('unpinServer', [name], () => undefined);
  }
  approveLaunch(name: string, launchHash: string) {
    return this.answer(
      'approveLaunch',
      [name, launchHash],
      () =>
        void this.servers.forEach((s) => {
          if (s.name !== name) return;
          s.status = 'idle';
          s.launch = { ...s.launch, approved: true, approvedBy: 'person' };
        }),
    );
  }
  setLimits(name: string, limits: LimitsProfile, launchHash?: string) {
    return this.answer(
      'setLimits',
      launchHash ? [name, limits, launchHash] : [name, limits],
      () =>
        void this.servers.forEach((s) => {
          if (s.name !== name || !('command' in s.config)) return;
          s.config = { ...s.config, limits };
          if (s.limits) s.limits = { ...s.limits, profile: limits };
        }),
    );
  }
  setRunWithoutLimits(name: string, allowed: boolean, launchHash?: string) {
    return this.answer(
      'setRunWithoutLimits',
      launchHash ? [name, allowed, launchHash] : [name, allowed],
      () =>
        void this.servers.forEach((s) => {
          if (s.name === name && s.limits?.unenforced) s.limits = { ...s.limits, unenforced: { ...s.limits.unenforced, runsWithoutLimits: allowed } };
        }),
    );
  }
  listInlineApproval() {
    return this.answer('listInlineApproval', [], () => structuredClone(this.inline));
  }
  setInlineApproval(client: string, enabled: boolean) {
    return this.answer('setInlineApproval', [client, enabled], () => {
      const c = this.inline.find((x) => x.client === client);
      if (c) c.enabled = enabled;
      else this.inline.push({ client, enabled, seen: false });
    });
  }
  importServers(mcpServers: Record<string, unknown>) {
    return this.answer('importServers', [mcpServers], () => {
      for (const name of Object.keys(mcpServers)) this.servers.push(makeServer({ name }));
      return { added: Object.keys(mcpServers), skipped: [] };
    });
  }
  listUnsealed() {
    return this.answer('listUnsealed', [], () => this.unsealed);
  }
  confirmUnsealed(ref: UnsealedRef) {
    return this.answer('confirmUnsealed', [ref], () => void (this.unsealed = this.unsealed.filter((g) => g.hash !== ref.hash)));
  }
  discardUnsealed(ref: UnsealedRef) {
    return this.answer('discardUnsealed', [ref], () => void (this.unsealed = this.unsealed.filter((g) => g.hash !== ref.hash)));
  }
  setPaused(paused: boolean) {
    return this.answer('setPaused', [paused], () => void (this.status.paused = paused));
  }
  readFileForPreview(path: string) {
    return this.answer('readFileForPreview', [path], () => this.files[path] ?? { exists: false });
  }
  runDoctor(opts?: ClientScanOptions) {
    return this.answer('runDoctor', opts ? [opts] : [], () => structuredClone(this.doctor));
  }
  listClients(opts?: ClientScanOptions) {
    return this.answer('listClients', opts ? [opts] : [], () => structuredClone(this.clients));
  }
  previewWrap(client: ClientId, opts: WrapOptions) {
    return this.answer('previewWrap', [client, opts], (): WrapPreview =>
      structuredClone(this.wrapPreview ?? { client, files: [], changes: 0, planHash: PLAN_HASH }),
    );
  }
  /** Marks every direct server of the client wrapped, as the broker would after writing. */
  wrapClient(client: ClientId, opts: WrapOptions, planHash: string) {
    return this.answer('wrapClient', [client, opts, planHash], (): WrapResult => {
      const c = this.clients.find((v) => v.id === client)!;
      const wrapped = c.files.flatMap((f) => f.servers.filter((s) => s.state === 'direct').map((s) => s.name));
      for (const f of c.files) for (const s of f.servers) if (s.state === 'direct') Object.assign(s, { state: 'wrapped', countersignServer: s.name });
      c.canUnwrap = true;
      this.emit({ type: 'clients-changed' });
      return { client, files: [{ path: c.files[0]!.path, backup: '/data/client-backups/x.bak', wrapped }], added: wrapped, reused: [] };
    });
  }
  previewUnwrap(client: ClientId, opts: ClientScanOptions) {
    return this.answer('previewUnwrap', [client, opts], (): UnwrapPreview => structuredClone(this.unwrapPreview ?? { client, files: [], planHash: PLAN_HASH }));
  }
  unwrapClient(client: ClientId, opts: ClientScanOptions, planHash?: string) {
    return this.answer('unwrapClient', planHash === undefined ? [client, opts] : [client, opts, planHash], (): UnwrapResult => {
      const c = this.clients.find((v) => v.id === client)!;
      for (const f of c.files) for (const s of f.servers) if (s.state === 'wrapped') Object.assign(s, { state: 'direct', countersignServer: undefined });
      c.canUnwrap = false;
      this.emit({ type: 'clients-changed' });
      return { client, files: [], servers: [] };
    });
  }
  listUndoable() {
    return this.answer('listUndoable', [], () => structuredClone(this.undoable));
  }
  previewUndo(target: UndoTarget) {
    return this.answer('previewUndo', [target], (): UndoPreview =>
      structuredClone(this.undoPreview ?? { target, calls: [], files: [], conflicts: 0, hash: PLAN_HASH }),
    );
  }
  undo(target: UndoTarget, previewHash: string, opts?: { confirmConflicts?: boolean }) {
    return this.answer('undo', opts ? [target, previewHash, opts] : [target, previewHash], (): UndoResult =>
      structuredClone(this.undoResult ?? { snapshot: '0'.repeat(16), files: [] }),
    );
  }
  subscribe(listener: (event: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
