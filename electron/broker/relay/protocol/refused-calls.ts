// Every call that reaches Countersign is in the audit log, the ones refused before they were decided
// too: a line or body that is not a valid message (not UTF-8, a BOM, not JSON, a repeated envelope key,
// too large), a batch, an envelope that does not fit, a call without an id. A message that could not be
// read may have been a call, so it is logged as one (with the tool's name when its first bytes give it);
// one read as something else (a ping with a null id) is not a call and is not logged. Pure: `connect`
// finds the calls and the broker writes their entries.
import type { AuditEntry } from '../../../../shared/api.js';
import { depthRefusal, TOO_DEEP_ARGUMENTS } from '../../checks/argument-depth.js';
import { sniffName } from '../../wire/id-sniff.js';

/** A refused message, as jsonrpc-guard.ts describes it: why, its value when it could be read, its first bytes. */
export interface RefusedMessage {
  reason: string;
  read?: { value: unknown };
  head: string;
}

export interface RefusedCall {
  /** '' when the message could not be read that far. */
  tool: string;
  arguments: unknown;
  /** Read as a tools/call; false: unreadable, it may have been one. */
  certain: boolean;
  reason: string;
}

/** A batch of a thousand calls is refused as one message: this many are logged one by one, the rest counted. */
export const MAX_REFUSED_PER_MESSAGE = 20;

const UNREAD = { countersign: 'arguments not recorded: the message could not be read' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The calls a refused message held (or may have held), for the log. */
export function refusedCalls(refused: RefusedMessage): RefusedCall[] {
  // The reason may quote the message (a parse error does): kept short.
  const reason = refused.reason.slice(0, 2000);
  if (!refused.read) return [{ tool: sniffName(refused.head), arguments: UNREAD, certain: false, reason }];
  const { value } = refused.read;
  const calls = (Array.isArray(value) ? value : [value]).filter((m): m is Record<string, unknown> => isObject(m) && m.method === 'tools/call');
  const logged = calls.slice(0, MAX_REFUSED_PER_MESSAGE).map((m) => callOf(m, reason));
  const more = calls.length - logged.length;
  if (more > 0) logged[logged.length - 1]!.reason += ` (and ${more} more calls in the same message, not logged one by one)`;
  return logged;
}

/** One refused call, as a message that was read presents it (its arguments as the log keeps arguments). */
export function callOf(message: Record<string, unknown>, reason: string): RefusedCall {
  const params = isObject(message.params) ? message.params : {};
  const args = params.arguments;
  return { tool: typeof params.name === 'string' ? params.name : '', arguments: depthRefusal(args) ? TOO_DEEP_ARGUMENTS : args, certain: true, reason };
}

/** The audit entry of a refused call: denied by Countersign itself, before any decision, with why. */
export function refusedCallEntry(server: string, client: string | undefined, call: RefusedCall): Omit<AuditEntry, 'seq' | 'prev' | 'hash'> {
  const detail = call.certain
    ? `Countersign refused this call before deciding it: ${call.reason}. It was not run.`
    : `Countersign refused a message it could not read, which may have been a tool call: ${call.reason}. Nothing was run.`;
  return {
    time: new Date().toISOString(),
    server,
    tool: call.tool,
    arguments: call.arguments,
    decision: 'deny',
    decidedBy: 'policy',
    reasons: ['refused-message'],
    durationMs: 0,
    status: 'denied',
    detail,
    client,
  };
}
