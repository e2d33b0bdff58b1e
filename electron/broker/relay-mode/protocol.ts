// What `connect` and the broker say to each other in relay mode, where `connect` relays the client's
// messages to a server the broker started, and the broker keeps every decision, record and log.
// Requests and notifications travel as JSON-RPC on the control socket (see control-channel.ts).
import type { CallInput } from '../../../shared/api.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { DecidedBy } from '../../../shared/decision.js';
import type { CallOutcome, LeaseInfo } from '../calls/gate-contract.js';
import type { ExitInfo } from '../upstream/stdio-upstream.js';
import type { RefusedCall } from '../relay/protocol/refused-calls.js';

/** How long `connect` may reuse an automatic allow before asking the broker again. */
export const LEASE_TTL_MS = 200;

/**
 * Lets `connect` allow further calls of one tool without asking, while nothing changes: it lapses after
 * `ttlMs`, when the broker revokes it (any change of trust, rules, settings, records or pause), when
 * the tool listing changes, and (`untilLocalRead`) once the client has read local data.
 */
export interface LeaseGrant extends LeaseInfo {
  ttlMs: number;
}

export type DecideReply =
  | { forward: false; result: Record<string, unknown>; upstreamTimeoutMs: number }
  | { forward: true; retryOnTimeout: boolean; lease?: LeaseGrant; upstreamTimeoutMs: number; decidedBy?: DecidedBy };

/**
 * A call `connect` allowed under a lease, reported before it is forwarded (report-order.ts): the broker
 * writes its audit entry once the call's `settled` report comes, or as not finished if none does.
 */
export interface LeasedCall {
  call: number;
  time: string;
  tool: string;
  arguments: unknown;
  decidedBy: DecidedBy;
  reasons: string[];
}

export type Report =
  | { kind: 'leased'; call: LeasedCall }
  /** How a call ended (one the broker allowed, or a leased one); `durationMs` as `connect` timed it. */
  | { kind: 'settled'; call: number; outcome: CallOutcome; durationMs?: number };

/** connect → broker. */
export interface ToBroker {
  initialized: { client?: { name?: string; version?: string }; result: Record<string, unknown>; elicitation?: boolean };
  listed: { tools: ToolDefinition[] };
  cancel: { call: number; by?: 'client' | 'session'; reason?: string };
  report: { items: Report[] };
  /** Sent after the last report of an orderly end. */
  bye: Record<string, never>;
  /** A call `connect` refused before it could be decided (a bad line, a batch, an id in use…): the broker logs it. */
  refused: RefusedCall;
  /** The server sent the client a request (elicitation, sampling, roots): the broker logs it, and why it was declined if it was. */
  'server-request': { method: string; params?: Record<string, unknown>; calls: string[]; declined?: string };
}

/** connect → broker requests, and what they answer. */
export interface BrokerRequests {
  /**
   * `tooDeepIn`: that member of the call's params (arguments, inputResponses…) nests past MAX_ARGUMENT_DEPTH;
   * what nests too deep is left out (it cannot be sent).
   */
  decide: { params: { call: number; tool: string; arguments: unknown; progress?: boolean; tooDeepIn?: string; input?: CallInput }; result: DecideReply };
  rewrite: { params: { tools: ToolDefinition[] }; result: { tools?: ToolDefinition[] } };
  /** A server's form imitates Countersign's: whether to decline it (approval inside this client is on). */
  imitation: { params: Record<string, never>; result: { refuse: boolean } };
}

/** broker → connect. */
export interface ToConnect {
  upstream: { ok: true } | { ok: false; error: string };
  exited: ExitInfo;
  progress: { call: number; progress: number; message: string };
  revoke: { history?: boolean };
  'tools-changed': Record<string, never>;
  close: { why: string };
  /** Stop asking the client about this call (it was answered in Countersign). */
  'elicit-cancel': { call: number };
}

/** broker → connect requests. */
export interface ConnectRequests {
  definition: { params: { name: string }; result: { definition?: ToolDefinition } };
  /** Inline approval: a request of Countersign's own to the client, about a waiting call. */
  elicit: { params: { call: number; method: string; params: Record<string, unknown> }; result: { result: unknown } };
}
