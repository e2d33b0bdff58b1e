// Multi round-trip requests (2026-07-28): a server may answer `tools/call` with `input_required` (what it
// needs: an elicitation, a sampling, the roots) instead of running the tool; the client then retries the
// call carrying `inputResponses` and the server's `requestState`. Countersign recognises the retry as the
// same call continuing (so the card can show the input), and records each round truthfully.
import type { CallInput, InputRequested } from '../../../../shared/api.js';
import type { DecidedBy } from '../../../../shared/decision.js';
import type { JsonRpcRequest } from '../../../../shared/jsonrpc.js';

const MAX_OPEN_ROUNDS = 100;

export function isInputRequired(result: Record<string, unknown>): boolean {
  return result.resultType === 'input_required';
}

/** The server's input requests, as text a person can read. */
export function inputRequested(result: Record<string, unknown>): InputRequested[] {
  const requests = result.inputRequests;
  if (typeof requests !== 'object' || requests === null) return [];
  return Object.entries(requests as Record<string, unknown>)
    .slice(0, 50)
    .map(([key, value]) => {
      const r = (typeof value === 'object' && value !== null ? value : {}) as { method?: unknown; params?: Record<string, unknown> };
      const params = r.params ?? {};
      const out: InputRequested = { key, method: typeof r.method === 'string' ? r.method : 'unknown' };
      if (params.mode === 'url' || params.mode === 'form') out.mode = params.mode;
      if (typeof params.message === 'string') out.message = params.message.slice(0, 2000);
      if (typeof params.url === 'string') out.url = params.url.slice(0, 2000);
      return out;
    });
}

/** One line for the log: what the server asked for instead of running the tool. */
export function describeRequested(requested: InputRequested[]): string {
  if (requested.length === 0) return 'The server asked for another round (requestState only) instead of running the tool.';
  const parts = requested.map((r) => {
    const what = r.url ? `${r.method} (URL, shown, not opened): ${r.url}` : r.message ? `${r.method}: "${r.message}"` : r.method;
    return `'${r.key}' (${what})`;
  });
  return `The server asked for input instead of running the tool: ${parts.join('; ')}.`;
}

interface OpenRound {
  tool: string;
  args: string;
  requested: InputRequested[];
  round: number;
  decidedBy?: DecidedBy;
}

function argsKey(params: Record<string, unknown>): string {
  return JSON.stringify(params.arguments ?? {});
}

/** The rounds of one session's calls still waiting for their retry. */
export class InputRounds {
  private readonly byState = new Map<string, OpenRound>();
  private readonly byCall = new Map<string, OpenRound>();

  /** The server answered `request` with input_required. */
  record(request: JsonRpcRequest, result: Record<string, unknown>, decidedBy: DecidedBy | undefined, round: number): void {
    const params = request.params ?? {};
    const open: OpenRound = { tool: String(params.name), args: argsKey(params), requested: inputRequested(result), round, decidedBy };
    if (typeof result.requestState === 'string') this.byState.set(result.requestState, open);
    this.byCall.set(`${open.tool}\n${open.args}`, open);
    for (const map of [this.byState, this.byCall]) while (map.size > MAX_OPEN_ROUNDS) map.delete(map.keys().next().value!);
  }

  /**
   * The round this request continues, when it retries a call the server asked input for: same tool and
   * arguments, carrying `inputResponses` or the `requestState` the server gave. A retry that names another
   * tool or other arguments is a new call, whatever state it carries.
   */
  continuationOf(request: JsonRpcRequest): CallInput | undefined {
    const params = request.params ?? {};
    const state = typeof params.requestState === 'string' ? params.requestState : undefined;
    if (state === undefined && params.inputResponses === undefined) return undefined;
    const key = `${String(params.name)}\n${argsKey(params)}`;
    const open = (state !== undefined ? this.byState.get(state) : undefined) ?? this.byCall.get(key);
    if (!open || open.tool !== String(params.name) || open.args !== argsKey(params)) {
      // Input for a round this session never saw (forged, or its pool expired): shown, not trusted as a continuation.
      return params.inputResponses === undefined ? undefined : { round: 2, requested: [], supplied: params.inputResponses };
    }
    if (state !== undefined) this.byState.delete(state);
    this.byCall.delete(key);
    return { round: open.round + 1, requested: open.requested, supplied: params.inputResponses, earlier: open.decidedBy };
  }
}
