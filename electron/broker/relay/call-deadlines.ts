// Deadlines and retry. Every forwarded call has a deadline; one timer per session serves them all, set
// for the earliest (a timer per call costs more than the relay itself on a fast path). A call that runs
// out is cancelled upstream; an idempotent tool of a trusted server is sent once more, else it fails.
import { ErrorCode, type JsonRpcId, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { CallAttempt } from '../../../shared/api.js';
import type { CallOutcome, Settle } from '../calls/gate-contract.js';
import type { ForwardedCall, IdMaps } from './id-maps.js';

/** What the deadlines need of their session. */
export interface DeadlineHost {
  readonly ids: IdMaps;
  readonly serverName: string;
  isClosed(): boolean;
  timeoutMs(): number;
  sendUpstream(message: JsonRpcMessage, downId?: JsonRpcId): void;
  failDownstream(downId: JsonRpcId, text: string, code: number): void;
}

export class CallDeadlines {
  private timer?: NodeJS.Timeout;

  constructor(private readonly host: DeadlineHost) {}

  /** Starts (or restarts) the deadline of the call forwarded under `upId`. */
  arm(upId: number): void {
    const call = this.host.ids.up.get(upId)?.call;
    if (!call) return;
    const timeoutMs = this.host.timeoutMs();
    call.deadline = performance.now() + timeoutMs;
    if (!this.timer) this.schedule(timeoutMs);
  }

  /** Upstream progress on a forwarded call shows it is alive: restart its timeout. */
  progress(token: unknown): void {
    if (token === undefined) return;
    for (const [upId, pending] of this.host.ids.up) {
      const meta = pending.call?.request.params?._meta as { progressToken?: unknown } | undefined;
      if (meta?.progressToken === token) this.arm(upId);
    }
  }

  /** The session closed: no deadline fires any more. */
  stop(): void {
    clearTimeout(this.timer);
  }

  private schedule(inMs: number): void {
    this.timer = setTimeout(() => this.sweep(), Math.max(0, inMs));
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    if (this.host.isClosed()) return;
    const up = this.host.ids.up;
    const now = performance.now();
    let next = Infinity;
    for (const [upId, pending] of [...up]) {
      const deadline = pending.call?.deadline;
      if (deadline === undefined) continue;
      if (deadline <= now) this.timedOut(upId);
    }
    for (const pending of up.values()) if (pending.call) next = Math.min(next, pending.call.deadline);
    if (next !== Infinity) this.schedule(next - now);
  }

  private timedOut(upId: number): void {
    const { ids } = this.host;
    const pending = ids.up.get(upId);
    const call = pending?.call;
    if (!pending || !call || pending.downId === null) return;
    ids.up.delete(upId);
    this.host.sendUpstream({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upId, reason: 'timed out' } });
    const seconds = Math.round(this.host.timeoutMs() / 100) / 10;
    if (call.retryOnTimeout && !call.retried) {
      // Only a trusted server's idempotent tool: a second identical call has no further effect.
      const newUp = ids.nextUpId();
      const now = performance.now();
      const first: CallAttempt = {
        status: 'timeout',
        durationMs: Math.round(now - (call.sentAt ?? now)),
        detail: `No answer within ${seconds} s: Countersign cancelled it and sent the call again (an idempotent tool of a trusted server).`,
      };
      // Its entry says it was sent twice, and how each sending ended.
      const onSettled: Settle = (outcome) => call.onSettled({ ...outcome, attempts: [first, attemptOf(outcome, performance.now() - now)] });
      const retry: ForwardedCall = { ...call, retried: true, upId: newUp, sentAt: now, onSettled };
      ids.up.set(newUp, { downId: pending.downId, method: 'tools/call', call: retry });
      const inflight = ids.down.get(pending.downId);
      if (inflight) inflight.upId = newUp;
      this.host.sendUpstream({ ...call.request, id: newUp }, pending.downId);
      this.arm(newUp);
      return;
    }
    ids.up.set(upId, pending); // let failDownstream settle it
    this.host.failDownstream(
      pending.downId,
      `Server '${this.host.serverName}' did not answer '${String(call.request.params?.name)}' within ${seconds} s${call.retried ? ', even after one retry' : ''}.`,
      ErrorCode.UpstreamTimeout,
    );
  }
}

/** One sending of a call, from how it ended. */
function attemptOf(outcome: CallOutcome, durationMs: number): CallAttempt {
  const detail = 'error' in outcome ? outcome.error : 'detail' in outcome ? outcome.detail : undefined;
  return { status: outcome.status, durationMs: Math.round(durationMs), ...(detail !== undefined ? { detail } : {}) };
}
