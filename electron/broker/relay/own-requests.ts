// Countersign's own requests inside a relayed session: to the server (tools/list to learn its tools,
// server/discover), whose answers never reach the client; and to the client (inline approval's form),
// whose answers never reach the server.
import { ErrorCode, isResponse, isResult, type JsonRpcId, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import type { IdMaps } from './id-maps.js';

export interface ServerAskHost {
  readonly ids: IdMaps;
  readonly serverName: string;
  timeoutMs(): number;
  /** Why the server went away, once it has. */
  goneReason(): string | undefined;
  sendUpstream(message: JsonRpcMessage): Promise<void>;
}

/** Countersign's own requests to the server. */
export class ServerAsks {
  private readonly onGone: Array<() => void> = [];

  constructor(private readonly host: ServerAskHost) {}

  /** A request of the broker's own to the server; its answer never reaches the client. */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { ids, serverName } = this.host;
    const upId = ids.nextUpId();
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        ids.up.delete(upId);
        const i = this.onGone.indexOf(gone);
        if (i !== -1) this.onGone.splice(i, 1);
      };
      const gone = (): void => {
        done();
        reject(new Error(this.host.goneReason() ?? `server '${serverName}' went away`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`server '${serverName}' did not answer ${method}`));
      }, this.host.timeoutMs());
      timer.unref();
      this.onGone.push(gone);
      ids.up.set(upId, {
        downId: null,
        method,
        resolveInternal: (m) => {
          done();
          if (isResult(m)) resolve(m.result);
          else reject(new Error(`server '${serverName}' refused ${method}`));
        },
      });
      this.host.sendUpstream({ jsonrpc: '2.0', id: upId, method, params }).catch(gone);
    });
  }

  /** The server went away (or the session ended): every request still waiting fails. */
  gone(): void {
    for (const gone of this.onGone.splice(0)) gone();
  }
}

/** Countersign's own requests to the client, by our id (`cs-own-N`). */
export class ClientAsks {
  private readonly waiting = new Map<string, (m: JsonRpcMessage) => void>();
  private next = 1;

  constructor(
    private readonly toClient: (message: JsonRpcMessage, related?: JsonRpcId) => void,
    private readonly isClosed: () => boolean,
  ) {}

  /**
   * A request of Countersign's own to the client (on the call's stream, over HTTP). Aborting it tells
   * the client to drop it (notifications/cancelled), e.g. once the call was answered in Countersign.
   */
  ask(method: string, params: Record<string, unknown>, signal: AbortSignal, related?: JsonRpcId): Promise<unknown> {
    if (this.isClosed() || signal.aborted) return Promise.reject(new Error('no longer waiting'));
    const id = `cs-own-${this.next++}`;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.waiting.delete(id)) return;
        this.toClient({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'answered elsewhere' } }, related);
        reject(new Error('no longer waiting'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, (m) => {
        this.waiting.delete(id);
        signal.removeEventListener('abort', onAbort);
        if (isResult(m)) resolve(m.result);
        else reject(new Error(isResponse(m) && 'error' in m ? String(m.error.message) : 'the session ended'));
      });
      this.toClient({ jsonrpc: '2.0', id, method, params }, related);
    });
  }

  /** Takes the client's answer when it answers one of ours: true when it did. */
  answered(message: JsonRpcMessage & { id: JsonRpcId | null }): boolean {
    const own = typeof message.id === 'string' ? this.waiting.get(message.id) : undefined;
    if (!own) return false;
    own(message);
    return true;
  }

  /** The session ended: every request still waiting fails. */
  end(): void {
    for (const [id, settle] of [...this.waiting]) settle({ jsonrpc: '2.0', id, error: { code: ErrorCode.ServerUnavailable, message: 'the session ended' } });
  }
}
