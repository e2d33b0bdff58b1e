// Checks what `connect` sends the broker in relay mode: it is our own code, but a message that does not
// fit is refused with a clear error instead of reaching the gate or the audit log half-formed.
import { z } from 'zod';

// Names are not limited here: an odd name is a finding on the listing, never a failed tools/list
// (a line is at most 32 MiB anyway).
const tool = z.object({ name: z.string() }).passthrough();
const outcome = z.union([
  z.object({ status: z.enum(['ok', 'error']) }),
  z.object({ status: z.enum(['failed', 'timeout']), error: z.string().max(10_000) }),
  z.object({ status: z.literal('cancelled') }),
  z.object({ status: z.literal('input-required'), detail: z.string().max(20_000) }),
]);
const short = z.string().max(2000);
const input = z.object({
  round: z.number().int().min(1).max(10_000),
  requested: z.array(z.object({
    key: z.string().max(256), method: z.string().max(256), mode: z.enum(['form', 'url']).optional(), message: short.optional(), url: short.optional(),
  })).max(50),
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
  decide: z.object({ call: callNumber, tool: z.string(), arguments: z.unknown(), progress: z.boolean().optional(), tooDeep: z.literal(true).optional(), input: input.optional() }),
  serverRequest: z.object({ method: z.string().max(256), params: z.record(z.unknown()).optional(), calls: z.array(z.string().max(512)).max(1000) }),
  /** `by`: whether the client cancelled (or left), or the session ended; `reason` as the client gave it. */
  cancel: z.object({ call: callNumber, by: z.enum(['client', 'session']).optional(), reason: z.string().max(1000).optional() }),
  report: z.object({
    // Discriminated: a plain union would build an error for each member a `settled` item is not (per call).
    items: z.array(z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('leased'),
        call: z.object({
          call: callNumber,
          time: z.string().max(64),
          tool: z.string(),
          arguments: z.unknown(),
          decidedBy,
          reasons: z.array(z.string().max(128)).max(64),
        }),
      }),
      z.object({ kind: z.literal('settled'), call: callNumber, outcome, durationMs: z.number().nonnegative().optional() }),
    ])).max(100_000),
  }),
  definition: z.object({ definition: tool.optional() }),
};
