// The one API between the broker and any UI. The HTTP bridge (countersign serve) and the Electron IPC
// bridge both bind exactly this interface; the renderer only ever sees it.
import type { DecidedBy, Reason, Rule } from './decision.js';
import type { EffectiveHints, ToolDefinition } from './tool.js';

export type ServerConfig =
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> };

export interface ServerView {
  name: string;
  config: ServerConfig;
  trusted: boolean;
  /** Running sessions upstream of this server. */
  sessions: number;
  /** Tools as last listed by the server (claims). */
  tools: ToolView[];
  lastError?: string;
}

export interface ToolView {
  definition: ToolDefinition;
  hints: EffectiveHints;
}

export interface PendingCall {
  id: string;
  server: string;
  serverTrusted: boolean;
  tool: string;
  /** The tool's title, as supplied by the server. */
  title?: string;
  arguments: unknown;
  reasons: Reason[];
  hints: EffectiveHints;
  preview: boolean;
  client: { name?: string; version?: string; session: string };
  createdAt: number;
  expiresAt: number;
}

export type DecisionRequest =
  | { kind: 'allow-once' }
  | { kind: 'allow-session' }
  | { kind: 'always-allow' }
  | { kind: 'deny'; reason?: string };

export type DecideResult =
  | { ok: true; forwarded: boolean; note?: string }
  | { ok: false; error: 'not-pending' };

export interface AuditEntry {
  seq: number;
  time: string;
  server: string;
  tool: string;
  arguments: unknown;
  decision: 'allow' | 'deny';
  decidedBy: DecidedBy;
  reasons: string[];
  durationMs: number;
  status: 'ok' | 'error' | 'denied' | 'cancelled' | 'failed' | 'timeout';
  /** Free text: a deny reason or an upstream error. */
  detail?: string;
  client?: string;
  prev: string;
  hash: string;
}

export interface LogQuery {
  server?: string;
  tool?: string;
  decision?: 'allow' | 'deny';
  search?: string;
  limit?: number;
}

export interface Settings {
  approvalTimeoutSeconds: number;
  upstreamTimeoutSeconds: number;
  theme: 'system' | 'light' | 'dark';
}

export interface BrokerStatus {
  version: string;
  dataDir: string;
  /** Problems found at start, such as a settings file moved aside. */
  warnings: string[];
  httpUrl?: string;
  mcpUrlTemplate?: string;
  connectCommand: string;
  paused: boolean;
}

export type BrokerEvent =
  | { type: 'pending-added'; call: PendingCall }
  | { type: 'pending-removed'; id: string; why: 'allowed' | 'denied' | 'timeout' | 'cancelled' | 'session-closed' }
  | { type: 'servers-changed' }
  | { type: 'rules-changed' }
  | { type: 'settings-changed' }
  | { type: 'log-appended'; entry: AuditEntry }
  | { type: 'status-changed' };

export interface CountersignApi {
  getStatus(): Promise<BrokerStatus>;
  listPending(): Promise<PendingCall[]>;
  decide(id: string, decision: DecisionRequest): Promise<DecideResult>;
  listServers(): Promise<ServerView[]>;
  addServer(name: string, config: ServerConfig): Promise<void>;
  removeServer(name: string): Promise<void>;
  setTrust(name: string, trusted: boolean): Promise<void>;
  listRules(): Promise<Rule[]>;
  removeRule(id: string): Promise<void>;
  getSettings(): Promise<Settings>;
  updateSettings(patch: Partial<Settings>): Promise<Settings>;
  queryLog(query: LogQuery): Promise<AuditEntry[]>;
  /** Returns the function that ends the subscription. */
  subscribe(listener: (event: BrokerEvent) => void): () => void;
}

/** Request/response methods of the API, as named on every bridge. */
export type ApiMethod = Exclude<keyof CountersignApi, 'subscribe'>;
