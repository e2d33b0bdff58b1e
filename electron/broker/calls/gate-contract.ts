// The call gate's contract: what deciding a tools/call needs of its session and its call, and what the
// decision hands back to the relay. Both relays meet the gate here: RelaySession (in the broker, or inside
// `connect`) and the broker's half of relay mode (relay-mode/broker/broker-half.ts).
import type { CallAttempt, CallInput } from '../../../shared/api.js';
import type { DecidedBy } from '../../../shared/decision.js';
import type { JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { ProtectScope } from '../checks/self-protection.js';

/** What deciding a call needs of its session, wherever the session runs (here, or in `connect`). */
export interface GateSession {
  readonly id: string;
  readonly serverName: string;
  readonly clientKey: string;
  clientInfo?: { name?: string; version?: string };
  readonly allowedTools: Set<string>;
  /** Reuses automatic allows under a lease (relay mode's `connect`): only then is one made. */
  readonly takesLeases?: boolean;
  toolDefinition(name: string): Promise<ToolDefinition | undefined>;
  knownTools(): ToolDefinition[];
}

export interface ToolCallContext {
  session: GateSession;
  request: JsonRpcRequest;
  toolName: string;
  arguments: unknown;
  /** Set by relay mode when `connect` left out a member of the call's params (arguments…) nested too deep to send. */
  tooDeepIn?: string;
  /** Aborted when the client cancels the call or the session ends; its reason is a WaitEnd. */
  signal: AbortSignal;
  /** The client sent a progress token: it hears that the call waits, and may keep waiting for it. */
  progressRequested: boolean;
  /** Sends a progress notification to the client, when its request carried a progressToken. */
  sendProgress(progress: number, message: string): void;
  /** The client declared form-mode elicitation: Countersign may ask it (inline approval). */
  clientElicits?: boolean;
  /** A request of Countersign's own to the client, about this call; rejects when `signal` aborts. */
  askClient?(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** The retry of a call the server asked input for (2026-07-28): the input it carries. */
  input?: CallInput;
}

/**
 * How a forwarded call ended: what the log needs, never the result itself (it may be large). `attempts`:
 * each sending and its end, when it was sent more than once (a retry after a timeout).
 */
export type CallOutcome = (
  | { status: 'ok' | 'error' }
  | { status: 'failed' | 'timeout'; error: string }
  | { status: 'cancelled' }
  /** The server asked for input instead of running the tool; `detail` says what. */
  | { status: 'input-required'; detail: string }
) & { attempts?: CallAttempt[] };

/** Set on an automatic allow (no person involved), which `connect` may reuse for a while: see LeaseGrant. */
export interface LeaseInfo {
  decidedBy: DecidedBy;
  reasons: string[];
  /** Given while the client had read no local data: lapses once it has. */
  untilLocalRead: boolean;
  /** Self-protection: a leased call whose arguments name these paths is not leased, it asks the broker. */
  protect?: { scope: ProtectScope; toolOnlyReads: boolean };
  /** The validator leased calls are checked with (schema-export.ts); none: the tool has no schema. */
  schema?: { key: string; code?: string };
}

/**
 * Logs how a forwarded call ended. A promise holds the call's answer until the entry is on disk: true once
 * written, false when the log did not take it (the answer then says the call is not logged).
 */
export type Settle = (outcome: CallOutcome) => void | Promise<boolean>;

export type GateVerdict =
  { forward: true; retryOnTimeout: boolean; onSettled: Settle; lease?: LeaseInfo; decidedBy?: DecidedBy } | { forward: false; result: Record<string, unknown> };

/** A tool result that says what went wrong (a refusal, a call Countersign could not run or log). */
export function errorResult(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}
