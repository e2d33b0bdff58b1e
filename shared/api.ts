// The one API between the broker and any UI. The HTTP bridge (countersign serve) and the Electron IPC
// bridge both bind exactly this interface; the renderer only ever sees it.
import type { UndoableCall, UndoAvailability, UndoPreview, UndoResult, UndoTarget } from './undo.js';
export type { FileState, UndoableCall, UndoAction, UndoAvailability, UndoFilePlan, UndoPreview, UndoResult, UndoTarget, UndoVersion } from './undo.js';
import type { ClientId, ClientScanOptions, ClientView, UnwrapPreview, UnwrapResult, WrapOptions, WrapPreview, WrapResult } from './clients.js';
import type { DecidedBy, Reason, Rule } from './decision.js';
import type { EffectiveHints, ToolDefinition } from './tool.js';
import type {
  Finding,
  LaunchView,
  PinView,
  ReviewAction,
  ReviewedTool,
  SeenServer,
  ServerChanges,
  ServerStatus,
  UnsealedGrant,
  UnsealedRef,
} from './trust-types.js';
import type { HiddenPath, LimitsEnforcement, LimitsOffer, LimitsProfile, SandboxSupport } from './limits.js';
import type { CallFacts } from './call-facts.js';
import type { DoctorReport } from './doctor.js';
import type { RuleRequest } from './rules.js';
import type { z } from 'zod';
import type { serverConfigSchema, settingsPatchSchema, settingsSchema } from './config-schema.js';
export type { RuleLifetime, RuleRequest, ScopeChoice } from './rules.js';

export type * from './clients.js';
export type * from './doctor.js';
export type {
  Finding,
  LaunchView,
  PinnedPackage,
  PinView,
  ReviewAction,
  ReviewedTool,
  SeenServer,
  ServerChanges,
  ServerStatus,
  ToolChangeView,
  UnsealedGrant,
  UnsealedRef,
} from './trust-types.js';

/**
 * Who made a change, as the audit log records it: the surface a person used (the browser UI of
 * `countersign serve`, the desktop app, the CLI), the team policy, or Countersign itself (a quarantine).
 * Each surface gets the API bound to its actor; no caller names its own. `client`: an answer given
 * in the MCP client's own form (inline approval, only where the person turned it on for that client).
 */
export type Actor = 'browser' | 'desktop' | 'cli' | 'policy' | 'countersign' | 'client';

/**
 * A server's launch config, as the zod schema in api-schema.ts defines it (the one definition).
 * `limits`: what its sandbox lets it reach; part of the launch hash, so the launch consent covers them.
 */
export type ServerConfig = z.infer<typeof serverConfigSchema>;

export interface ServerView {
  name: string;
  config: ServerConfig;
  trusted: boolean;
  /** Running sessions upstream of this server. */
  sessions: number;
  /** Tools as last listed by the server (claims). */
  tools: ToolView[];
  /** Fingerprint of `tools` as shown: trusting or pinning passes it back, so a listing that changed meanwhile is refused. */
  listingHash?: string;
  lastError?: string;
  status: ServerStatus;
  launch: LaunchView;
  pin?: PinView;
  /** Why no call passes: what differs from the pin. */
  quarantine?: string[];
  /** Tools waiting for review. */
  pendingChanges: number;
  /** What the server said about itself at its last start. */
  identity?: { name?: string; title?: string; version?: string; protocolVersion?: string };
  /** About the server itself: a name it borrows from another server, an id that looks like another's. */
  findings?: Finding[];
  /** What the organization's managed policy decides for this server (shown as "managed by your organization"). */
  managed?: string[];
  /** Set when the team policy file blocks this server. */
  blockedBy?: string;
  /** Local servers: their limits, what enforces them here, and the limits Countersign offers. */
  limits?: ServerLimitsView;
  /** Its last start took more than 10 s to answer `initialize`: how long, and what usually causes it. */
  slowStart?: SlowStart;
  /** Its command is not on the PATH servers are started with: why, with the PATH searched and the fix. */
  commandNotFound?: string;
  /** Set when a managed policy has a catalogue or catalogue restrictions: how this server stands with them. */
  catalogue?: CatalogueView;
}

/** A server against the organization's catalogue of reviewed servers (docs/admin.md, "The catalogue"). */
export interface CatalogueView {
  /**
   * 'trusted': it runs exactly what the entry names ("trusted by your organization"); 'mismatch': it
   * differs from the entry named, in `differences`; 'none': no catalogue entry names it.
   */
  state: 'trusted' | 'mismatch' | 'none';
  entry?: string;
  differences?: string[];
  /** Its package content was checked (at its last start); before that only its command line is known. */
  contentChecked: boolean;
  /** The person chose not to trust it: the organization's trust does not apply (friction wins). */
  declined?: boolean;
  /** A managed restriction (only catalogue servers, minimum limits) will not let it start: why, with the organization's reason. */
  refused?: string;
}

export interface SlowStart {
  /** From the session's start to the server's first answer. */
  ms: number;
  /** When that start was (ISO). */
  at: string;
  /** What usually causes it, most likely first, each with its fix where there is one. */
  causes: string[];
}

export interface ServerLimitsView {
  profile: LimitsProfile;
  /**
   * Names of the network variables (proxies, CA files, package indexes) set where Countersign runs that
   * this server gets at its next start: names only, since a proxy URL can hold a password.
   */
  networkEnv?: string[];
  /** How each limit would stand at the next start on this machine (the probe's answer, never assumed). */
  enforcement: LimitsEnforcement;
  /** Of a running process: how its limits stand now (a change applies at its next start). */
  running?: { profile: LimitsProfile; enforcement: LimitsEnforcement; badge: string };
  /** The card's badge: "no network · read-only ~/project (enforced)", or what is not enforced and why. */
  badge: string;
  /** Suggested limits (never applied on their own), with the reasons; absent when it has none to offer. */
  offer?: LimitsOffer;
  /** Countersign's own files its sandbox masks from it, whatever its paths say ("hidden from this server"). */
  hidden?: HiddenPath[];
  /**
   * Limits asked that this machine cannot enforce: why, the fix, and whether the person let it run
   * without them (`setRunWithoutLimits`). Without that it does not start here.
   */
  unenforced?: { reason: string; fix?: string; runsWithoutLimits: boolean };
}

export interface ToolView {
  definition: ToolDefinition;
  hints: EffectiveHints;
  /** approved: matches the record; held: changed or new, waiting for review; unrecorded: no record yet. */
  state: 'approved' | 'held' | 'unrecorded';
  findings: Finding[];
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
  /** Scan of the tool's description and of these arguments. */
  findings: Finding[];
  client: { name?: string; version?: string; session: string };
  /** What Countersign found around the call (files it names, this agent's earlier reads, enforced limits). */
  facts?: CallFacts;
  /** The limits its server runs under, as a badge ("no network (enforced)"); absent when it has none. */
  limits?: string;
  /**
   * Whether the call can be undone once it ran (shared/undo.ts undoText gives the card's words): "Undo
   * available", "No undo: Countersign cannot tell which files this changes", or a file over the size limit.
   */
  undo?: UndoAvailability;
  createdAt: number;
  expiresAt: number;
  /** When the agent is likely to stop waiting for this call (before `expiresAt`, often). */
  clientWait?: ClientWait;
  /** A later round of a multi round-trip call (2026-07-28): what the server asked for, what the client supplies. */
  input?: CallInput;
}

/** One input request of a server, shown as text (a URL is shown, never opened or fetched). */
export interface InputRequested {
  key: string;
  /** elicitation/create, sampling/createMessage, roots/list. */
  method: string;
  mode?: 'form' | 'url';
  message?: string;
  url?: string;
}

/**
 * The retry of a call whose earlier round the server answered with `input_required`: Countersign
 * recognises it as the same call continuing, and shows the input it carries.
 */
export interface CallInput {
  /** 2 for the first retry. */
  round: number;
  requested: InputRequested[];
  /** The client's answers (`inputResponses`), as sent. */
  supplied?: unknown;
  /** How the earlier round was decided ('person' for a one-time approval). */
  earlier?: DecidedBy;
}

/**
 * How long the client is likely to wait. `sdk-default`: it sent no progress token, so the SDK default
 * (60 s) applies; `progress`: it asked for progress, which Countersign sends, so it may wait until
 * `expiresAt` if it restarts its clock on progress, or stop at 60 s if not; `observed`: it stopped
 * waiting on a timeout before, after this long.
 */
export interface ClientWait {
  givesUpAt?: number;
  basis: 'sdk-default' | 'progress' | 'observed';
  progress: boolean;
}

export type DecisionRequest =
  | { kind: 'allow-once' }
  | { kind: 'allow-session' }
  | { kind: 'always-allow' }
  /** Approve this call and save a rule built from its arguments (scope), for a lifetime. */
  | { kind: 'allow-rule'; rule: RuleRequest }
  | { kind: 'deny'; reason?: string };

export type DecideResult =
  | { ok: true; forwarded: boolean; note?: string }
  | { ok: false; error: 'not-pending' }
  /** "Always allow" whose rule could not be saved (a read-only or full disk): the call still waits. */
  | { ok: false; error: 'not-saved'; message: string };

export interface InlineApprovalClient {
  client: string;
  enabled: boolean;
  /** Seen this run with the elicitation capability. */
  seen: boolean;
}

export type PendingRemovedWhy = 'allowed' | 'denied' | 'timeout' | 'cancelled' | 'session-closed' | 'agent-stopped';

/**
 * A server a client tried to start whose command waits for the person's approval: one per server and
 * command, however often clients retried. Approve it with approveLaunch(server, launch.hash).
 */
export interface LaunchRequest {
  server: string;
  /** What would run (as the Servers screen shows it), with its hash. */
  launch: LaunchView;
  /** Why it did not start. */
  reason: string;
  firstAt: number;
  lastAt: number;
  /** How many times clients tried to start it. */
  attempts: number;
  /** The clients that asked, by the name they gave Countersign (`--client`, `?client=`); empty when none did. */
  clients: string[];
}

/** One sending of a forwarded call to its server, and how it ended. */
export interface CallAttempt {
  status: 'ok' | 'error' | 'failed' | 'timeout' | 'cancelled' | 'input-required';
  detail?: string;
  durationMs: number;
}

export interface AuditEntry {
  seq: number;
  time: string;
  server: string;
  tool: string;
  arguments: unknown;
  /**
   * 'call' for tool calls; the others record changes of state: trust decisions, servers, rules, settings, client
   * configs wrapped or unwrapped; 'access': connections the local socket refused (no proof of its secret).
   */
  kind?: 'call' | 'review' | 'trust' | 'pin' | 'launch' | 'server' | 'rule' | 'settings' | 'client' | 'server-request' | 'access' | 'undo';
  /** Who made a change (absent on tool calls, and on entries written before actors were recorded). */
  actor?: Actor;
  decision: 'allow' | 'deny';
  decidedBy: DecidedBy;
  reasons: string[];
  durationMs: number;
  /** 'input-required': the server asked for input instead of running the tool (2026-07-28); the retry is its own entry. */
  status: 'ok' | 'error' | 'denied' | 'cancelled' | 'failed' | 'timeout' | 'input-required';
  /** Free text: a deny reason or an upstream error. */
  detail?: string;
  /** The rule that allowed the call, as it read then (decidedBy 'rule'). */
  rule?: { id: string; text: string };
  client?: string;
  /** A call's server's limits in force when it ran ("no network · read-only ~/p (enforced)"). */
  limits?: string;
  /** Why the server counted as trusted when not by the person ("trusted by your organization: catalogue entry …"). */
  trustedBy?: string;
  /**
   * Every time the call was sent, in order, when it was sent more than once: a trusted server's idempotent
   * call that timed out is cancelled and sent once more. `status` and `detail` are then the last attempt's.
   */
  attempts?: CallAttempt[];
  /** The undo snapshot of what the call changed (kept before it was forwarded), or an undo's own. */
  snapshot?: string;
  prev: string;
  hash: string;
}

export interface RulePatch {
  expiresAt?: string | null;
  coversExfiltration?: boolean;
}

export interface FilePreview {
  exists: boolean;
  /** Bytes on disk, for a file that exists. */
  size?: number;
  /** The path is a folder (then `refused` says no content is read). */
  directory?: boolean;
  content?: string;
  tooLarge?: boolean;
  binary?: boolean;
  /** Set when the path may not be read (not part of any pending call). */
  refused?: string;
}

export interface LogQuery {
  server?: string;
  tool?: string;
  decision?: 'allow' | 'deny';
  search?: string;
  limit?: number;
}

export type Settings = z.infer<typeof settingsSchema>;
/** A change of settings; `policyPath: null` removes the team policy file. */
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export interface BrokerStatus {
  version: string;
  dataDir: string;
  /** Problems found at start, such as a settings file moved aside. */
  warnings: string[];
  httpUrl?: string;
  mcpUrlTemplate?: string;
  /** `connectLaunch` as one line for a shell; `<server>` stands for the server's name. */
  connectCommand: string;
  /** What a stdio client's entry runs: an absolute command, never a registry name. `<server>` in args. */
  connectLaunch: ConnectLaunch;
  paused: boolean;
  /**
   * The sandbox this machine can enforce (found by a probe, never assumed), or why there is none and
   * the fix (`reason`, `fix`). Servers whose limits it cannot enforce do not start.
   */
  sandbox?: SandboxSupport;
  /** MCP over HTTP: open sessions (2025-11-25), stateless pools (2026-07-28), and when idle ones close. */
  httpSessions?: { sessions: number; stateless: number; idleTimeoutSeconds: number };
  /** The team policy file: which is in effect and why, and one written by hand that is ignored. */
  policy?: PolicyStatus;
  /** With a managed catalogue or its restrictions: each server the organization trusts, finds different, or refuses. */
  catalogue?: Array<CatalogueView & { server: string }>;
  /** Where the audit log is exported and how far each destination has taken it (absent: no export). */
  auditExport?: AuditExportStatus;
  /** The organization's managed policy (docs/admin.md): where it was looked for, whether it counts, its restrictions. */
  managed?: ManagedStatus;
}

export interface AuditExportStatus {
  /** Who chose the destination: the organization's managed policy, or the person in settings. */
  source: 'managed' | 'person';
  /** The managed policy's restrictions.auditExportRequired: the person cannot turn it off or change it. */
  required?: { reason: string };
  sinks: AuditExportSinkStatus[];
}

export interface AuditExportSinkStatus {
  kind: 'otlp' | 'syslog';
  /** Where it sends (no credentials): "http/protobuf https://collector:4318/v1/logs", "tcp://siem:6514". */
  target: string;
  /** 'down': DOWN_AFTER sends in a row failed (a banner); it keeps trying, nothing is dropped. */
  state: 'ok' | 'retrying' | 'down';
  /** The last seq the destination took (the durable cursor). */
  exportedSeq: number;
  /** Entries on disk it has not taken yet. */
  backlog: number;
  /** The backlog is past its bound (100,000 entries): reported, never dropped; the export catches up. */
  backlogExceeded: boolean;
  failures: number;
  lastError?: string;
  lastSuccessAt?: string;
}

/** One managed restriction, as the status, CLI and UI show it, with the reason the managed file gives. */
export interface ManagedRestriction {
  key: 'onlyCatalogue' | 'deny' | 'minimumLimits' | 'alwaysAllow' | 'inlineApprovalOff' | 'maxApprovalTimeout' | 'auditExportRequired';
  text: string;
  reason: string;
  /** maxApprovalTimeout: the person's setting (seconds) when it asks for more, and what it is capped to. */
  capped?: { from: number; to: number };
}

export interface ManagedStatus {
  /** none: no file; loaded: it counts; broken: unreadable or invalid, every server blocked; ignored: not owned as the rule asks. */
  state: 'none' | 'loaded' | 'broken' | 'ignored';
  /** The file looked for (or the one that is broken or ignored). */
  path: string;
  /** The OS path, COUNTERSIGN_MANAGED_POLICY, or the broker option (tests). */
  from: 'os' | 'environment' | 'option';
  /** macOS: the configuration profile whose keys were read too. */
  profile?: string;
  /** broken: what is wrong. */
  error?: string;
  /** ignored: why, and the exact commands that make it count. */
  why?: string;
  fix?: string;
  /** An override that was not followed because a policy is deployed at the OS path. */
  overrideIgnored?: string;
  restrictions: ManagedRestriction[];
  /** What it sets beside the restrictions: blocked servers, always-ask tools, servers it reviewed (command, limits, pin). */
  block: string[];
  alwaysAsk: Array<{ server: string; tool: string }>;
  servers: string[];
}

export interface PolicyStatus {
  /** The file in effect (absent: none). */
  path?: string;
  /**
   * Who chose it: COUNTERSIGN_POLICY, the person in Countersign (sealed), or settings.json while the
   * sealed records cannot be read (it then only adds friction, as any user policy).
   */
  from?: 'environment' | 'person' | 'unconfirmed';
  /** It could not be read: every server is blocked until it is fixed. */
  error?: string;
  /** Whether its `command` entries stand in for the person's launch consent: never for a user policy. */
  mayPreapprove: boolean;
  /** A path settings.json names that the person did not set: ignored until confirmed (listUnsealed). */
  unconfirmed?: string;
}

export interface ConnectLaunch {
  command: string;
  args: string[];
  /** Something to know about this command (e.g. a Node that a version manager may uninstall). */
  note?: string;
}

export type BrokerEvent =
  | { type: 'pending-added'; call: PendingCall }
  /** `agent-stopped`: the client cancelled the call (or closed its session) before anyone decided. */
  | { type: 'pending-removed'; id: string; why: PendingRemovedWhy }
  | { type: 'servers-changed' }
  | { type: 'rules-changed' }
  | { type: 'settings-changed' }
  | { type: 'log-appended'; entry: AuditEntry }
  | { type: 'status-changed' }
  | { type: 'changes-detected'; server: string }
  | { type: 'clients-changed' }
  /** A launch started or stopped waiting for the person's approval (listLaunchRequests). */
  | { type: 'launch-requests-changed' };

export interface CountersignApi {
  getStatus(): Promise<BrokerStatus>;
  listPending(): Promise<PendingCall[]>;
  /** Servers clients tried to start whose commands wait for the person's approval (the queue shows them). */
  listLaunchRequests(): Promise<LaunchRequest[]>;
  decide(id: string, decision: DecisionRequest): Promise<DecideResult>;
  listServers(): Promise<ServerView[]>;
  addServer(name: string, config: ServerConfig): Promise<void>;
  removeServer(name: string): Promise<void>;
  /**
   * Trusting passes what the person saw (`launch.hash`, `listingHash` of the server's view): refused when
   * either changed since. Untrusting adds friction and needs nothing.
   */
  setTrust(name: string, trusted: boolean, seen?: SeenServer): Promise<void>;
  /** Saved rules and the rules of open client sessions (`session` set), expired ones included until removed. */
  listRules(): Promise<Rule[]>;
  removeRule(id: string): Promise<void>;
  /** Changes a rule's end (`expiresAt` ISO, or null: until removed) or whether it covers calls after local reads. */
  updateRule(id: string, patch: RulePatch): Promise<Rule>;
  getSettings(): Promise<Settings>;
  /**
   * Changes settings. `policyPath` sets the team policy file (an absolute path to a valid policy; sealed
   * as the person's choice) or, with null, removes it. Audited.
   */
  updateSettings(patch: SettingsPatch): Promise<Settings>;
  queryLog(query: LogQuery): Promise<AuditEntry[]>;
  /** Changed, new and removed tool definitions waiting for review, with structured diffs. */
  listChanges(): Promise<ServerChanges[]>;
  /**
   * Accept or reject held changes. Accepting names each tool with the `hash` of the change the person saw
   * (and `identityHash` to accept a changed version or instructions); a change that moved since is
   * refused and nothing is accepted. Rejecting needs no hash; without `tools` it rejects them all.
   */
  reviewChanges(server: string, action: ReviewAction, tools?: ReviewedTool[], identityHash?: string): Promise<void>;
  /** Pins a server to its running version, definitions and (npx/uvx/docker) exact package and its content. */
  pinServer(name: string, seen: SeenServer): Promise<PinView>;
  unpinServer(name: string): Promise<void>;
  /** The person approves the exact command line (or URL) they saw: `launch.hash` of its view. */
  approveLaunch(name: string, launchHash: string): Promise<void>;
  /**
   * Sets a local server's limits. Tighter limits apply at once (its running sessions end, to restart
   * under them). Looser ones need consent: with `launchHash` (the view the person saw, plus these limits)
   * they are approved; without it they are saved and the server waits for its launch to be approved again.
   */
  setLimits(name: string, limits: LimitsProfile, launchHash?: string): Promise<void>;
  /**
   * A server under limits this machine cannot enforce does not start. The person may let it run without
   * them: `true` with the launch hash they saw (sealed, audited; any change of command or limits asks
   * again), or `false` to require them again (ends a process running without them).
   */
  setRunWithoutLimits(name: string, allowed: boolean, launchHash?: string): Promise<void>;
  /** Adds servers from an `mcpServers` JSON object (as in Claude Desktop's config). */
  importServers(mcpServers: Record<string, unknown>): Promise<{ added: string[]; skipped: Array<{ name: string; why: string }> }>;
  setPaused(paused: boolean): Promise<void>;
  /**
   * The current content of a file a pending call wants to write, for a diff preview. Only paths that
   * appear in a pending call's arguments can be read.
   */
  readFileForPreview(path: string): Promise<FilePreview>;
  /** MCP clients found on this machine: their config files, servers, and which go through Countersign. */
  listClients(opts?: ClientScanOptions): Promise<ClientView[]>;
  /** What wrapping a client would change (a diff per file, values masked), and the hash of that plan. */
  previewWrap(client: ClientId, opts: WrapOptions): Promise<WrapPreview>;
  /**
   * Adds the client's servers to Countersign (untrusted, launch waiting for consent) and rewrites its
   * entries to start through `connect`. Refused when the files or the plan changed since the preview.
   */
  wrapClient(client: ClientId, opts: WrapOptions, planHash: string): Promise<WrapResult>;
  /** What unwrapping a client would change. */
  previewUnwrap(client: ClientId, opts: ClientScanOptions): Promise<UnwrapPreview>;
  /**
   * Puts the client's files back: the exact bytes when unchanged since the wrap, else only Countersign's
   * entries. With a plan hash, refused when the files changed since that preview.
   */
  unwrapClient(client: ClientId, opts: ClientScanOptions, planHash?: string): Promise<UnwrapResult>;
  /** Trust, launch consent and rules the files hold but the person never confirmed: they have no effect. */
  listUnsealed(): Promise<UnsealedGrant[]>;
  /** The person confirms a hand-made grant as shown (its `hash`): it takes effect. Refused when it changed since. */
  confirmUnsealed(grant: UnsealedRef): Promise<void>;
  /** Removes a hand-made grant from the files. */
  discardUnsealed(grant: UnsealedRef): Promise<void>;
  /**
   * Approval inside the client: clients seen this run that can show a form (elicitation), and whether
   * the person allowed each to answer pending calls. Off by default; kept until Countersign stops.
   */
  listInlineApproval(): Promise<InlineApprovalClient[]>;
  /** Turns approval inside the client on or off for one client (by the name it gives). Audited. */
  setInlineApproval(client: string, enabled: boolean): Promise<void>;
  /**
   * Checks this setup and explains what it finds, each problem with its fix (`countersign doctor`): the
   * broker, the data folder, every client entry, the servers, the sandbox, the keyring, the store, a team
   * policy and the ports. Reads only.
   */
  runDoctor(opts?: ClientScanOptions): Promise<DoctorReport>;
  /**
   * Calls whose file changes can be undone, newest first: each with its snapshot id, its log `seq` once
   * written, its files, and `undoneBy` once undone (an undo is listed too, with `undoOf`).
   */
  listUndoable(): Promise<UndoableCall[]>;
  /**
   * What undoing would do: one call (`{ seq }` or `{ snapshot }`) or every change of a client, session or
   * server since a time (newest change per file undone first). Each file with what it becomes, what the
   * call left and what is there now (three versions); `conflicts` counts files changed since. Reads only.
   */
  previewUndo(target: UndoTarget): Promise<UndoPreview>;
  /**
   * Puts the files back as the preview showed (consent bound to its `hash`: refused when anything moved
   * since). With conflicts it is refused unless `confirmConflicts`. Audited (who, files) and snapshotted
   * itself, so it can be undone. The desktop app asks in a native dialog.
   */
  undo(target: UndoTarget, previewHash: string, opts?: { confirmConflicts?: boolean }): Promise<UndoResult>;
  /** Returns the function that ends the subscription. */
  subscribe(listener: (event: BrokerEvent) => void): () => void;
}

/** Request/response methods of the API, as named on every bridge. */
export type ApiMethod = Exclude<keyof CountersignApi, 'subscribe'>;
