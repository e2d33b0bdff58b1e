// Id remapping. Each request a session forwards goes upstream under an id of the session's own (a number,
// counting up), and each request the server makes goes to the client under one of ours (`cs-N`). Answers
// are matched back through these books: a stray, duplicate or foreign response completes nothing.
import type { JsonRpcId, JsonRpcMessage, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { DecidedBy } from '../../../shared/decision.js';
import type { Settle } from '../calls/gate-contract.js';
import type { WaitEnd } from '../calls/client-patience.js';

/** A request forwarded upstream, by our id. */
export interface UpstreamPending {
  downId: JsonRpcId | null; // null: the broker's own request
  method: string;
  resolveInternal?: (m: JsonRpcMessage) => void;
  call?: ForwardedCall;
  hadCursor?: boolean;
}

/** A tools/call on its way to the server, or waiting for its answer. */
export interface ForwardedCall {
  request: JsonRpcRequest;
  retryOnTimeout: boolean;
  retried: boolean;
  /** When it counts as timed out upstream (performance.now() time). */
  deadline: number;
  /** When it was sent (performance.now() time; set when tracked). */
  sentAt?: number;
  onSettled: Settle;
  upId: number;
  /** Who allowed it, and which round of a multi round-trip call it is (1 for a first call). */
  decidedBy?: DecidedBy;
  round?: number;
}

/** A client's request in flight, by the client's id. */
export interface DownInflight {
  method: string;
  upId?: number;
  /** Set while a tools/call waits for a decision. */
  abort?: AbortController;
}

/** The client's requests in flight, and the ids they (and Countersign's own requests) went upstream under. */
export class IdMaps {
  private nextUp = 1;
  /** Requests forwarded upstream, by our id. */
  readonly up = new Map<number, UpstreamPending>();
  /** The client's requests in flight, by its id. */
  readonly down = new Map<JsonRpcId, DownInflight>();

  /** A fresh upstream id. */
  nextUpId(): number {
    return this.nextUp++;
  }

  /** Registers a request as forwarded under a new upstream id, which it returns. */
  track(message: Pick<JsonRpcRequest, 'id' | 'method' | 'params'>, call?: Omit<ForwardedCall, 'upId'>): number {
    const upId = this.nextUp++;
    this.up.set(upId, {
      downId: message.id,
      method: message.method,
      call: call ? { ...call, upId, sentAt: performance.now() } : undefined,
      hadCursor: message.params?.cursor !== undefined,
    });
    const inflight = this.down.get(message.id) ?? { method: message.method };
    inflight.upId = upId;
    inflight.abort = undefined;
    this.down.set(message.id, inflight);
    return upId;
  }

  /**
   * The client cancelled its request `requestId`. One still waiting for a decision stops waiting; one sent
   * upstream is settled as cancelled, and its upstream id returned (the server is told under it).
   */
  cancelled(requestId: unknown, reason: unknown): number | undefined {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return undefined;
    const inflight = this.down.get(requestId);
    if (!inflight) return undefined; // nothing of ours to cancel
    if (inflight.abort) {
      inflight.abort.abort({ by: 'client', reason: typeof reason === 'string' ? reason : undefined } satisfies WaitEnd);
      this.down.delete(requestId);
      return undefined;
    }
    if (inflight.upId === undefined) return undefined;
    const pending = this.up.get(inflight.upId);
    this.up.delete(inflight.upId);
    this.down.delete(requestId);
    void pending?.call?.onSettled({ status: 'cancelled' }); // its entry only resolves; no answer waits on it
    return inflight.upId;
  }

  /** The name of every call still running upstream (a server's request may belong to any: stdio carries no link). */
  callsRunning(): string[] {
    return [...this.up.values()].flatMap((p) => (p.call ? [String(p.call.request.params?.name)] : []));
  }
}

/** The server's requests to the client: our downstream id (`cs-N`) → the server's own id. */
export class ServerRequestIds {
  private next = 1;
  private readonly theirs = new Map<string, JsonRpcId>();

  /** Our id for the server's request `id`. */
  adopt(id: JsonRpcId): string {
    const ours = `cs-${this.next++}`;
    this.theirs.set(ours, id);
    return ours;
  }

  has(ours: string): boolean {
    return this.theirs.has(ours);
  }

  drop(ours: string): void {
    this.theirs.delete(ours);
  }

  /** The server's id for our `ours`, forgotten (its answer goes back once); undefined when we sent no such request. */
  take(ours: string): JsonRpcId | undefined {
    const id = this.theirs.get(ours);
    if (id !== undefined) this.theirs.delete(ours);
    return id;
  }

  /** Our ids of the requests the server knows as `id`, forgotten (it cancelled them). */
  cancel(id: unknown): string[] {
    const ours: string[] = [];
    for (const [key, theirs] of this.theirs) {
      if (theirs === id) {
        this.theirs.delete(key);
        ours.push(key);
      }
    }
    return ours;
  }
}
