// Checks what `connect` sends the broker in relay mode: it is our own code, but a message that does not
// fit is refused with a clear error instead of reaching the gate or the audit log half-formed.
import { z } from 'zod';
import type { Report } from './protocol.js';
import type { CallAttempt } from '../../../shared/api.js';

// Names are not limited here: an odd name is a finding on the listing, never a failed tools/list
// (a line is at most 32 MiB anyway).
const tool = z.object({ name: z.string() }).passthrough();
const short = z.string().max(2000);
const input = z.object({
  round: z.number().int().min(1).max(10_000),
  requested: z
    .array(
      z.object({
        key: z.string().max(256),
        method: z.string().max(256),
        mode: z.enum(['form', 'url']).optional(),
        message: short.optional(),
        url: short.optional(),
      }),
    )
    .max(50),
  supplied: z.unknown().optional(),
  earlier: z.enum(['person', 'rule', 'policy', 'timeout', 'session', 'cancelled', 'client']).optional(),
});
const decidedBy = z.enum(['person', 'rule', 'policy', 'timeout', 'session', 'cancelled', 'client']);
const callNumber = z.number().int().nonnegative();

export const wire = {
  initialized: z.object({
    client: z.object({ name: z.string().max(512).optional(), version: z.string().max(512).optional() }).optional(),
    result: z.record(z.unknown()),
    elicitation: z.boolean().optional(),
  }),
  listed: z.object({ tools: z.array(tool).max(100_000) }),
  rewrite: z.object({ tools: z.array(tool).max(100_000) }),
  decide: z.object({
    call: callNumber,
    tool: z.string(),
    arguments: z.unknown(),
    progress: z.boolean().optional(),
    tooDeepIn: z.string().max(256).optional(),
    input: input.optional(),
    reported: callNumber.optional(),
  }),
  refused: z.object({ tool: z.string(), arguments: z.unknown(), certain: z.boolean(), reason: z.string().max(4000) }),
  /** `declined`: why `connect` declined it for the server (an imitation of Countersign's form). */
  serverRequest: z.object({
    method: z.string().max(256),
    params: z.record(z.unknown()).optional(),
    calls: z.array(z.string().max(512)).max(1000),
    declined: z.string().max(2000).optional(),
  }),
  /** `by`: whether the client cancelled (or left), or the session ended; `reason` as the client gave it. */
  cancel: z.object({ call: callNumber, by: z.enum(['client', 'session']).optional(), reason: z.string().max(1000).optional() }),
  definition: z.object({ definition: tool.optional() }),
};

// `report` comes with every leased call (twice): checked by hand, at a fraction of what zod's generic
// walk costs, to the same rules; what is returned holds only the fields named here (as zod's would).
const OUTCOME_STATUS = new Set(['ok', 'error', 'failed', 'timeout', 'cancelled', 'input-required']);
const DECIDED_BY: ReadonlySet<string> = new Set(decidedBy.options);
const MAX_REPORT_ITEMS = 100_000;

function fail(where: string, what: string): never {
  throw new Error(`report: ${where} ${what}`);
}

const isCallNumber = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isShort = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function outcomeOf(v: unknown, where: string): CallOutcomeWire {
  if (!isRecord(v) || typeof v.status !== 'string' || !OUTCOME_STATUS.has(v.status)) fail(where, 'has no valid outcome');
  const outcome = statusOf(v, where);
  return v.attempts === undefined ? outcome : { ...outcome, attempts: attemptsOf(v.attempts, where) };
}

/** A retried call's sendings (relay-session.ts sends a call at most twice). */
function attemptsOf(v: unknown, where: string): NonNullable<CallOutcomeWire['attempts']> {
  if (!Array.isArray(v) || v.length > 4) fail(where, 'has bad attempts');
  return v.map((a: unknown) => {
    if (!isRecord(a) || typeof a.status !== 'string' || !OUTCOME_STATUS.has(a.status)) fail(where, 'has an attempt with no valid status');
    if (!(typeof a.durationMs === 'number' && a.durationMs >= 0)) fail(where, 'has an attempt with a bad durationMs');
    if (a.detail !== undefined && !isShort(a.detail, 20_000)) fail(where, 'has an attempt with a bad detail');
    const status = a.status as CallAttempt['status'];
    return a.detail === undefined ? { status, durationMs: a.durationMs } : { status, durationMs: a.durationMs, detail: a.detail as string };
  });
}

function statusOf(v: Record<string, unknown>, where: string): CallOutcomeWire {
  switch (v.status) {
    case 'ok':
    case 'error':
    case 'cancelled':
      return { status: v.status };
    case 'failed':
    case 'timeout':
      if (!isShort(v.error, 10_000)) fail(where, 'needs an error of at most 10000 characters');
      return { status: v.status, error: v.error };
    default:
      if (!isShort(v.detail, 20_000)) fail(where, 'needs a detail of at most 20000 characters');
      return { status: 'input-required', detail: v.detail };
  }
}

type CallOutcomeWire = Extract<Report, { kind: 'settled' }>['outcome'];

/** The items of a `report` notification, checked; throws (the notification is dropped) when one does not fit. */
export function reportItems(p: Record<string, unknown>): Report[] {
  const items = p.items;
  if (!Array.isArray(items) || items.length > MAX_REPORT_ITEMS) fail('items', `must be an array of at most ${MAX_REPORT_ITEMS}`);
  const out: Report[] = new Array<Report>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    const where = `item ${i}`;
    if (!isRecord(item)) fail(where, 'is not an object');
    if (item.kind === 'settled') {
      if (!isCallNumber(item.call)) fail(where, 'has no call number');
      const { durationMs } = item;
      if (durationMs !== undefined && !(typeof durationMs === 'number' && durationMs >= 0)) fail(where, 'has a bad durationMs');
      const outcome = outcomeOf(item.outcome, where);
      out[i] = durationMs === undefined ? { kind: 'settled', call: item.call, outcome } : { kind: 'settled', call: item.call, outcome, durationMs };
      continue;
    }
    if (item.kind !== 'leased') fail(where, "is neither 'leased' nor 'settled'");
    const c = item.call;
    if (!isRecord(c) || !isCallNumber(c.call)) fail(where, 'has no call number');
    if (!isShort(c.time, 64) || typeof c.tool !== 'string') fail(where, 'needs a time and a tool');
    if (typeof c.decidedBy !== 'string' || !DECIDED_BY.has(c.decidedBy)) fail(where, 'has no valid decidedBy');
    const reasons = c.reasons;
    if (!Array.isArray(reasons) || reasons.length > 64 || !reasons.every((r) => isShort(r, 128))) fail(where, 'has bad reasons');
    out[i] = {
      kind: 'leased',
      call: {
        call: c.call,
        time: c.time,
        tool: c.tool,
        arguments: c.arguments,
        decidedBy: c.decidedBy as LeasedCall['decidedBy'],
        reasons: reasons as string[],
      },
    };
  }
  return out;
}

type LeasedCall = Extract<Report, { kind: 'leased' }>['call'];
