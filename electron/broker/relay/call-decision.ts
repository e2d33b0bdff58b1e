// A tools/call on the ordinary path: it waits for the gate's decision (call-gate.ts, or the broker
// behind `connect`), then goes to the server or is answered with the refusal. Fail closed: a call that
// could not be decided never reaches the server, and it is logged as refused.
import type { CallInput } from '../../../shared/api.js';
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { errorResult, type GateSession, type GateVerdict, type ToolCallContext } from '../calls/gate-contract.js';
import { shapedResult } from './protocol/era.js';
import { callOf, type RefusedCall } from './protocol/refused-calls.js';
import type { ForwardedCall, IdMaps } from './id-maps.js';

/** What deciding a call needs of its session. */
export interface DecisionHost {
  readonly session: GateSession;
  readonly ids: IdMaps;
  isClosed(): boolean;
  /** The client declared form-mode elicitation (read when the call comes). */
  clientElicits(): boolean;
  /** Without initialize (2026-07-28), the server says who it is before its first call is decided. */
  ensureIdentity(): Promise<void>;
  decide(ctx: ToolCallContext): Promise<GateVerdict>;
  refused(call: RefusedCall): void;
  askClient(method: string, params: Record<string, unknown>, signal: AbortSignal, related: JsonRpcId): Promise<unknown>;
  toClient(message: JsonRpcMessage, related: JsonRpcId): void;
  /** Sends the allowed call upstream, under its deadline. */
  forward(request: JsonRpcRequest, call: Omit<ForwardedCall, 'upId'>): void;
}

export async function decideAndForward(
  host: DecisionHost,
  request: JsonRpcRequest,
  toolName: string,
  params: Record<string, unknown>,
  input?: CallInput,
): Promise<void> {
  const abort = new AbortController();
  host.ids.down.set(request.id, { method: 'tools/call', abort });
  const progressToken = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const ctx: ToolCallContext = {
    session: host.session,
    request,
    toolName,
    arguments: params.arguments,
    signal: abort.signal,
    input,
    progressRequested: typeof progressToken === 'string' || typeof progressToken === 'number',
    clientElicits: host.clientElicits(),
    askClient: (method, p, signal) => host.askClient(method, p, signal, request.id),
    sendProgress: (progress, message) => {
      if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
      if (abort.signal.aborted) return;
      host.toClient({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, message } }, request.id);
    },
  };
  let verdict: GateVerdict;
  try {
    await host.ensureIdentity();
    verdict = await host.decide(ctx);
  } catch (err) {
    // Fail closed: a call we could not decide never reaches the server; it is logged as refused.
    host.refused(callOf(request, `it could not be decided (${(err as Error).message})`));
    verdict = { forward: false, result: errorResult(`Countersign could not decide this call, so it was not run: ${(err as Error).message}`) };
  }
  if (abort.signal.aborted || host.isClosed()) {
    if (verdict.forward) verdict.onSettled({ status: 'cancelled' });
    return; // cancelled or closed while waiting: forward nothing
  }
  if (!verdict.forward) {
    host.ids.down.delete(request.id);
    host.toClient({ jsonrpc: '2.0', id: request.id, result: shapedResult(verdict.result, request) }, request.id);
    return;
  }
  host.forward(request, {
    request,
    retryOnTimeout: verdict.retryOnTimeout,
    retried: false,
    onSettled: verdict.onSettled,
    deadline: 0,
    decidedBy: verdict.decidedBy,
    round: input?.round ?? 1,
  });
}
