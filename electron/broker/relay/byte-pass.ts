// The byte pass-through. `connect`'s fast lane (relay-mode/connect/fast-lane.ts) and HTTP's lanes
// (http/request-lane.ts, result-lane.ts) pass messages as their own bytes with only the id changed. These
// do the bookkeeping of the ordinary path for them; undefined means: take the ordinary path.
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { CallOutcome, GateVerdict, Settle } from '../calls/gate-contract.js';
import { countToolCall } from '../core/tier-up.js';
import { tooDeepIn } from '../checks/argument-depth.js';
import { unloggedAnswer } from './call-answers.js';
import type { IdMaps, UpstreamPending } from './id-maps.js';

/** What the pass-through needs of its session. */
export interface PassHost {
  readonly ids: IdMaps;
  isClosed(): boolean;
  /** The server is connected and has not gone away. */
  upstreamOpen(): boolean;
  /** The client speaks 2026-07-28. */
  modern(): boolean;
  /** An allow known at once (a lease), see SessionHooks.quickVerdict. */
  quickVerdict(toolName: string, args: unknown): Extract<GateVerdict, { forward: true }> | undefined;
  armDeadline(upId: number): void;
  toClient(message: JsonRpcMessage, related: JsonRpcId): void;
}

export class BytePass {
  constructor(private readonly host: PassHost) {}

  private canPass(id: JsonRpcId): boolean {
    return !this.host.isClosed() && this.host.upstreamOpen() && !this.host.ids.down.has(id);
  }

  /** A request that needs nothing but its id changed: the upstream id to write it with. */
  passRequest(id: JsonRpcId, method: string): number | undefined {
    return this.canPass(id) ? this.host.ids.track({ id, method }) : undefined;
  }

  /** A tools/call that a quick verdict (a lease) lets through: the upstream id to write it with. */
  passToolCall(request: JsonRpcRequest): number | undefined {
    if (!this.canPass(request.id)) return undefined;
    const params = request.params ?? {};
    // A multi round-trip retry is decided again, with its input shown: the ordinary path.
    if (params.inputResponses !== undefined || params.requestState !== undefined) return undefined;
    // Any part nested too deep: the broker refuses and logs it.
    const quick = tooDeepIn(params) ? undefined : this.host.quickVerdict(typeof params.name === 'string' ? params.name : '', params.arguments);
    if (!quick) return undefined; // decided on the ordinary path, and counted there
    countToolCall();
    const upId = this.host.ids.track(request, { request, retryOnTimeout: quick.retryOnTimeout, retried: false, onSettled: quick.onSettled, deadline: 0 });
    this.host.armDeadline(upId);
    return upId;
  }

  /**
   * The server's result for `upId`: the client's id to write it with, and how to settle the call once
   * written; null when it is to be dropped (stray, or the session is closed), as fromServer would.
   */
  passResult(upId: number): { downId: JsonRpcId; onSettled?: Settle } | null | undefined {
    const pending = this.takePassable(upId);
    if (!pending) return pending;
    return { downId: pending.downId, onSettled: pending.call?.onSettled };
  }

  /** The request `upId` answers, taken out of the books when its result may pass as bytes (see passResult). */
  private takePassable(upId: number): (UpstreamPending & { downId: JsonRpcId }) | null | undefined {
    const { ids } = this.host;
    const pending = this.host.isClosed() ? undefined : ids.up.get(upId);
    if (!pending) return null;
    if (!this.passesAsBytes(pending)) return undefined;
    const passable = pending as UpstreamPending & { downId: JsonRpcId }; // passesAsBytes refuses a null id
    ids.up.delete(upId);
    ids.down.delete(passable.downId);
    return passable;
  }

  /** The client's id of the request the server answers with `upId`, while that answer is awaited. */
  awaitedDownId(upId: number): JsonRpcId | undefined {
    const pending = this.host.isClosed() ? undefined : this.host.ids.up.get(upId);
    return pending?.downId ?? undefined;
  }

  /**
   * HTTP's pass-through of a result as bytes (http/result-lane.ts): settled as fromServer would, and a
   * call's answer held until its entry is written (answerLogged). `send` writes the server's bytes with
   * the client's id; a call the log did not take is answered as run but not logged instead.
   * undefined: the ordinary path takes it; null: dropped (stray, or the session is closed).
   */
  passResultLogged(upId: number, outcome: CallOutcome, send: (downId: JsonRpcId) => void): true | null | undefined {
    const pending = this.takePassable(upId);
    if (!pending) return pending;
    const { downId, call } = pending;
    const logged = call?.onSettled(outcome);
    if (!call || !logged) {
      send(downId);
      return true;
    }
    void logged.then((written) => {
      if (this.host.isClosed()) return;
      if (written) send(downId);
      else this.host.toClient(unloggedAnswer(call, downId), downId);
    });
    return true;
  }

  /** Whether passResult could pass the result for `upId` (no change made): the lane skips its scan when not. */
  mayPassResult(upId: number): boolean {
    const pending = this.host.isClosed() ? undefined : this.host.ids.up.get(upId);
    return pending !== undefined && this.passesAsBytes(pending);
  }

  private passesAsBytes(pending: UpstreamPending): boolean {
    if (pending.downId === null || pending.method === 'initialize' || pending.method === 'tools/list') return false;
    // 2026-07-28: a call's result may be input_required, discover names the server, listen carries its id.
    return !(pending.method === 'server/discover' || pending.method === 'subscriptions/listen' || (this.host.modern() && pending.call));
  }
}
