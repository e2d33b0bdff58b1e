// A server's forms on their way to the client: its own elicitation requests (2025-11-25) and the forms
// a call's input_required result asks for (2026-07-28) go marked as the server's. One that imitates
// Countersign's approval form (protocol/elicitation-guard.ts), while inline approval is on, is refused.
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { errorResult, type CallOutcome } from '../calls/gate-contract.js';
import { shapedResult } from './protocol/era.js';
import { imitation, markedParams } from './protocol/elicitation-guard.js';
import type { ForwardedCall, ServerRequestIds } from './id-maps.js';

export interface FormsHost {
  readonly serverName: string;
  readonly serverIds: ServerRequestIds;
  isClosed(): boolean;
  /** A server's request was relayed (or, `declined`, refused for it): surfaced by the session's hooks. */
  onServerRequest(message: JsonRpcRequest, calls: string[], declined?: string): void;
  /** Whether an imitation is declined here (SessionHooks.refuseImitation). */
  refuseImitation(): boolean | Promise<boolean>;
  toClient(message: JsonRpcMessage, related?: JsonRpcId): void;
  sendUpstream(message: JsonRpcMessage): void;
  answerLogged(call: ForwardedCall, outcome: CallOutcome, answer: JsonRpcMessage, downId: JsonRpcId): void;
}

export class ServerForms {
  constructor(private readonly host: FormsHost) {}

  /**
   * A server's form (2025-11-25: its own request) goes to the client marked as the server's. One that
   * imitates Countersign's approval form is declined for the server while inline approval is on here.
   */
  relayElicitation(message: JsonRpcRequest, ours: string, calls: string[]): void {
    const { host } = this;
    const params = message.params ?? {};
    const relay = (): void => {
      host.onServerRequest(message, calls);
      // Cancelled by the server, or the session ended, while Countersign looked: nothing to relay.
      if (host.isClosed() || !host.serverIds.has(ours)) return;
      host.toClient({ ...message, id: ours, params: markedParams(host.serverName, params) });
    };
    const why = imitation(params);
    if (!why) return relay();
    void this.refusesImitation().then((refuse) => {
      if (!refuse) return relay();
      host.serverIds.drop(ours);
      host.onServerRequest(message, calls, why);
      if (!host.isClosed()) host.sendUpstream({ jsonrpc: '2.0', id: message.id, result: { action: 'decline' } });
    });
  }

  /**
   * A call's input_required result (2026-07-28): each form it asks for goes to the client marked as the
   * server's. One that imitates Countersign's form, while inline approval is on here, ends the call with
   * Countersign's refusal instead (the server holds no state for it: the round simply ends), logged.
   */
  relayInputRequired(call: ForwardedCall, result: Record<string, unknown>, outcome: CallOutcome, out: JsonRpcMessage, downId: JsonRpcId): void {
    const { host } = this;
    const requests = result.inputRequests;
    const forms =
      typeof requests === 'object' && requests !== null && !Array.isArray(requests)
        ? Object.entries(requests as Record<string, unknown>).filter((e): e is [string, { method: string; params?: Record<string, unknown> }] => {
            const r = e[1] as { method?: unknown } | null;
            return typeof r === 'object' && r !== null && r.method === 'elicitation/create';
          })
        : [];
    if (!forms.length) return host.answerLogged(call, outcome, out, downId);
    const marked = { ...(requests as Record<string, unknown>) };
    for (const [key, r] of forms) marked[key] = { ...r, params: markedParams(host.serverName, r.params ?? {}) };
    const answer: JsonRpcMessage = { ...out, result: { ...result, inputRequests: marked } } as JsonRpcMessage;
    const imitating = forms.flatMap(([key, r]) => {
      const why = imitation(r.params);
      return why ? [{ key, params: r.params ?? {}, why }] : [];
    });
    if (!imitating.length) return host.answerLogged(call, outcome, answer, downId);
    const tool = String(call.request.params?.name);
    void this.refusesImitation().then((refuse) => {
      if (!refuse) return host.answerLogged(call, outcome, answer, downId);
      for (const f of imitating) host.onServerRequest({ jsonrpc: '2.0', id: f.key, method: 'elicitation/create', params: f.params }, [tool], f.why);
      const text = `Countersign refused the server's request for input: ${imitating[0]!.why}, while approval inside this client is on, so it could be mistaken for Countersign's own question. The tool did not run.`;
      host.answerLogged(call, outcome, { jsonrpc: '2.0', id: downId, result: shapedResult(errorResult(text), call.request) }, downId);
    });
  }

  /** Whether an imitation of Countersign's form is declined here; unsure (the broker unreachable): declined. */
  private refusesImitation(): Promise<boolean> {
    try {
      return Promise.resolve(this.host.refuseImitation()).catch(() => true);
    } catch {
      return Promise.resolve(true);
    }
  }
}
