// Decision vocabulary shared by the broker, the API and the UI.
import type { EffectiveHints } from './tool.js';

export type Outcome = 'allow' | 'ask' | 'deny';

export type ReasonCode =
  | 'untrusted-server'
  | 'trusted-read-only'
  | 'user-rule-allow'
  | 'user-rule-ignored-untrusted'
  | 'session-allow'
  | 'needs-approval'
  | 'destructive'
  | 'no-annotations'
  | 'unknown-tool'
  | 'open-world'
  | 'exfiltration-risk'
  | 'unverified-claims'
  | 'paused'
  | 'held-for-review'
  | 'quarantined'
  | 'blocked-by-policy'
  | 'policy-always-ask'
  | 'definition-changed'
  | 'scan-finding'
  | 'protected-path'
  // Limits the sandbox enforces (enforced-limits.ts).
  | 'read-only-enforced'
  | 'network-off-enforced'
  | 'open-world-without-network'
  | 'write-on-read-only'
  // The arguments break the tool's inputSchema (electron/broker/checks/schema-check.ts).
  | 'schema-violation';

/** Why Countersign itself refused a call before any decision (electron/broker/calls/call-gate.ts): logged as its reason. */
export type RefusalCode = 'arguments-too-deep' | 'undecidable';

export type Severity = 'danger' | 'warning' | 'info';

const SEVERITY_RANK: Record<Severity, number> = { danger: 0, warning: 1, info: 2 };
/** For sort(): danger, warning, info; ties keep their order (Array.prototype.sort is stable). */
export const worstFirst = (a: { severity: Severity }, b: { severity: Severity }): number => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];

export interface Reason {
  code: ReasonCode;
  severity: Severity;
  /** One plain sentence a person can read. */
  message: string;
}

/**
 * What a rule covers of a tool's calls, taken from the call it was made on:
 * tool: any arguments; under: every path the call names lies under `dir` (and `keys` name paths);
 * same-target: the call names exactly these files; exact: the arguments are exactly these (canonical JSON).
 */
export type RuleScope =
  | { kind: 'tool' }
  | { kind: 'under'; dir: string; keys: string[] }
  | { kind: 'same-target'; targets: Array<{ key: string; path: string }> }
  | { kind: 'exact'; arguments: string };

/** A saved rule: the person's own choice, scoped to server + tool (and its scope). Servers never create rules. */
export interface Rule {
  id: string;
  server: string;
  tool: string;
  action: 'allow';
  createdAt: string;
  /** Absent: any arguments (rules saved before scopes). */
  scope?: RuleScope;
  /** When the rule stops applying (ISO time); absent: until removed. */
  expiresAt?: string;
  /** Set: the rule lasts as long as this client session (kept in memory, never written). */
  session?: string;
  /** The person said the rule also covers calls the exfiltration guard asks about. */
  coversExfiltration?: boolean;
  /** sha256 of the tool definition the rule was given for: a changed definition is not covered. */
  definitionHash?: string;
}

export interface DecisionInput {
  server: { name: string; trusted: boolean };
  /** The tool as the server last listed it; undefined when the server never listed it. */
  tool: import('./tool.js').ToolDefinition | undefined;
  toolName: string;
  rules: readonly Rule[];
  session: {
    /** Tools the person allowed for this client session. */
    allowedTools: ReadonlySet<string>;
    /** True once this client session ran a tool that reads local data (read-only, closed world). */
    hasReadLocalData: boolean;
  };
  paused?: boolean;
  /** The team policy says this tool always asks: no read-only, rule or session allowance skips it. */
  forceAsk?: boolean;
  /** Countersign's own files or a client's config named in the arguments (self-protection). */
  protectedMatches?: readonly import('./protected-paths.js').ProtectedMatch[];
  /** The call's arguments, the client session, the time and the tool's definition hash: what scoped rules check. */
  arguments?: unknown;
  sessionId?: string;
  now?: number;
  definitionHash?: string;
  /** What the server's sandbox enforces now (absent: nothing, and nothing is assumed). */
  enforced?: import('./enforced-limits.js').EnforcedFacts;
}

export interface DecisionResult {
  outcome: Outcome;
  reasons: Reason[];
  hints: EffectiveHints;
  /** Arguments deserve a full preview (destructive or un-annotated). */
  preview: boolean;
  /** Whom the outcome comes from, for the audit log. */
  decidedBy: 'policy' | 'rule' | 'session';
  /** The rule that allowed the call (decidedBy 'rule'). */
  rule?: Rule;
}

/** `client`: the agent's client stopped waiting (cancelled, or closed its session) before anyone decided. */
export type DecidedBy = 'person' | 'rule' | 'policy' | 'timeout' | 'session' | 'cancelled' | 'client';
