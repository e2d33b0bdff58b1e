// One client session relayed to its own upstream connection. Messages pass at the message level,
// unchanged, except what we must intercept: tools/call requests, tools/list results and
// tools/list_changed. Request ids are remapped per connection so no stray response completes another call.
import {
  errorResponse, ErrorCode, isNotification, isRequest, isResponse, isResult,
  type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest,
} from '../../../shared/jsonrpc.js';
import type { CallAttempt, CallInput } from '../../../shared/api.js';
import type { DecidedBy } from '../../../shared/decision.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { ExitInfo } from '../upstream/stdio-upstream.js';
import type { WaitEnd } from '../calls/client-patience.js';
import { ToolCatalog } from '../calls/tool-catalog.js';
import { shapedResult } from './protocol/era.js';
import { SessionEra } from './protocol/session-era.js';
import { subscriptionIdOf, withSubscriptionId } from './protocol/subscriptions.js';
import { describeRequested, inputRequested, InputRounds, isInputRequired } from './protocol/input-rounds.js';
import { imitation, markedParams } from './protocol/elicitation-guard.js';
import type { MessageTransport } from '../wire/transport.js';
import { countToolCall } from '../core/tier-up.js';
import { tooDeepIn } from '../checks/argument-depth.js';
import { callOf, type RefusedCall } from './protocol/refused-calls.js';

/** What deciding a call needs of its session, wherever the session runs (here, or in `connect`). */
export interface GateSession {
  readonly id: string;
  readonly serverName: string;
  readonly clientKey: string;
  clientInfo?: { name?: string; version?: string };
  readonly allowedTools: Set<string>;
  /** Reuses automatic allows under a lease (relay mode's `connect`): only then is one made. */
  readonly takesLeases?: boolean;
  toolDefinition(name: string): Promise<ToolDefinition | undefined>;
  knownTools(): ToolDefinition[];
}

export interface ToolCallContext {
  session: GateSession;
  request: JsonRpcRequest;
  toolName: string;
  arguments: unknown;
  /** Set by relay mode when `connect` left out a member of the call's params (arguments…) nested too deep to send. */
  tooDeepIn?: string;
  /** Aborted when the client cancels the call or the session ends; its reason is a WaitEnd. */
  signal: AbortSignal;
  /** The client sent a progress token: it hears that the call waits, and may keep waiting for it. */
  progressRequested: boolean;
  /** Sends a progress notification to the client, when its request carried a progressToken. */
  sendProgress(progress: number, message: string): void;
  /** The client declared form-mode elicitation: Countersign may ask it (inline approval). */
  clientElicits?: boolean;
  /** A request of Countersign's own to the client, about this call; rejects when `signal` aborts. */
  askClient?(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** The retry of a call the server asked input for (2026-07-28): the input it carries. */
  input?: CallInput;
}

/**
 * How a forwarded call ended: what the log needs, never the result itself (it may be large). `attempts`:
 * each sending and its end, when it was sent more than once (a retry after a timeout).
 */
export type CallOutcome = (
  | { status: 'ok' | 'error' }
  | { status: 'failed' | 'timeout'; error: string }
  | { status: 'cancelled' }
  /** The server asked for input instead of running the tool; `detail` says what. */
  | { status: 'input-required'; detail: string }
) & { attempts?: CallAttempt[] };

/** Set on an automatic allow (no person involved), which `connect` may reuse for a while: see LeaseGrant. */
export interface LeaseInfo {
  decidedBy: DecidedBy;
  reasons: string[];
  /** Given while the client had read no local data: lapses once it has. */
  untilLocalRead: boolean;
  /** Self-protection: a leased call whose arguments name these paths is not leased, it asks the broker. */
  protect?: { scope: import('../checks/self-protection.js').ProtectScope; toolOnlyReads: boolean };
  /** The validator leased calls are checked with (schema-export.ts); none: the tool has no schema. */
  schema?: { key: string; code?: string };
}

/**
 * Logs how a forwarded call ended. A promise holds the call's answer until the entry is on disk: true once
 * written, false when the log did not take it (the answer then says the call is not logged).
 */
export type Settle = (outcome: CallOutcome) => void | Promise<boolean>;

export type GateVerdict =
  | { forward: true; retryOnTimeout: boolean; onSettled: Settle; lease?: LeaseInfo; decidedBy?: DecidedBy }
  | { forward: false; result: Record<string, unknown> };

export interface SessionHooks {
  decideToolCall(ctx: ToolCallContext): Promise<GateVerdict>;
  /** An allow known at once (a lease in `connect`), which skips the asynchronous decision. */
  quickVerdict?(session: RelaySession, toolName: string, args: unknown): Extract<GateVerdict, { forward: true }> | undefined;
  onToolsListed?(session: RelaySession, tools: ToolDefinition[]): void;
  onToolsChanged?(session: RelaySession): void;
  /**
   * A request the server sent the client (elicitation, sampling, roots): relayed, and surfaced.
   * `declined`: why Countersign declined it for the server instead (an imitation of its own form).
   */
  onServerRequest?(session: RelaySession, request: JsonRpcRequest, calls: string[], declined?: string): void;
  /**
   * A server's form imitates Countersign's approval form (elicitation-guard.ts): whether to decline it,
   * i.e. whether approval inside the client is on for this client. A failure to say declines it.
   */
  refuseImitation?(session: RelaySession): boolean | Promise<boolean>;
  /** The server's initialize result, as it passes to the client. */
  onInitialized?(session: RelaySession, result: Record<string, unknown>): void;
  /** What the client may see of a tools/list page; undefined passes it unchanged. */
  rewriteToolsList?(session: RelaySession, tools: ToolDefinition[]): ToolDefinition[] | undefined | Promise<ToolDefinition[] | undefined>;
  onClosed?(session: RelaySession): void;
  /** A forwarded tools/call as the line to write under `upId` (its own bytes, http/request-lane.ts); undefined: serialised. */
  requestLine?(request: JsonRpcRequest, upId: number): Buffer | undefined;
  /** Seconds before a forwarded tools/call counts as timed out upstream. */
  upstreamTimeoutMs(): number;
  /** A tools/call refused before it could be decided (its id in use, no decision reached): it goes to the log. */
  onRefused?(session: RelaySession, call: RefusedCall): void;
}

interface UpstreamPending {
  downId: JsonRpcId | null; // null: the broker's own request
  method: string;
  resolveInternal?: (m: JsonRpcMessage) => void;
  call?: ForwardedCall;
  hadCursor?: boolean;
}

interface ForwardedCall {
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

interface DownInflight {
  method: string;
  upId?: number;
  /** Set while a tools/call waits for a decision. */
  abort?: AbortController;
}

export class RelaySession implements GateSession {
  readonly id: string;
  clientInfo?: { name?: string; version?: string };
  readonly allowedTools = new Set<string>();
  private upstream?: MessageTransport;
  private upstreamStarting?: Promise<void>;
  private nextUpId = 1;
  private nextServerReqId = 1;
  private readonly upPending = new Map<number, UpstreamPending>();
  private readonly downInflight = new Map<JsonRpcId, DownInflight>();
  /** The client declared form-mode elicitation in its initialize request. */
  clientElicits = false;
  /** Countersign's own requests to the client (inline approval), by our id. */
  private readonly ownRequests = new Map<string, (m: JsonRpcMessage) => void>();
  private nextOwnId = 1;
  /** Our downstream id for a server→client request → the server's own id. */
  private readonly serverRequests = new Map<string, JsonRpcId>();
  private readonly catalog: ToolCatalog;
  /** Which revision the client speaks: 2026-07-28 envelopes, identity without initialize. */
  private readonly era = new SessionEra();
  /** Calls the server answered with input_required, until their retry. */
  private readonly rounds = new InputRounds();
  private closed = false;
  /** The client closed its side: calls still waiting were abandoned by the agent, not ended by us. */
  private clientGone = false;
  private initialized = false;
  private upstreamGoneReason?: string;

  constructor(
    readonly serverName: string,
    readonly clientKey: string,
    private readonly downstream: MessageTransport,
    private readonly openUpstream: () => MessageTransport,
    private readonly hooks: SessionHooks,
    id: string,
  ) {
    this.id = id;
    this.catalog = new ToolCatalog(
      (cursor) => this.internalRequest('tools/list', cursor === undefined ? {} : { cursor }),
      (tools) => this.hooks.onToolsListed?.(this, tools),
    );
  }

  async start(): Promise<void> {
    this.downstream.onmessage = (m) => this.fromClient(m);
    this.downstream.onclose = () => {
      this.clientGone = true;
      void this.close('client closed the session');
    };
    this.downstream.onerror = () => undefined;
    await this.downstream.start();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Definitions as this session's server last listed them. */
  knownTools(): ToolDefinition[] {
    return this.catalog.known();
  }

  private toClient(message: JsonRpcMessage, relatedRequestId?: JsonRpcId): void {
    if (this.closed) return;
    // A subscription's notifications go where its listen request went (its own POST over HTTP).
    relatedRequestId ??= isNotification(message) ? subscriptionIdOf(message) : undefined;
    this.downstream.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId }).catch(() => undefined);
  }

  private async ensureUpstream(): Promise<void> {
    if (this.upstream) return this.upstreamStarting;
    const up = this.openUpstream();
    this.upstream = up;
    up.onmessage = (m) => this.fromServer(m);
    up.onclose = () => this.upstreamClosed();
    up.onerror = () => undefined;
    this.upstreamStarting = up.start();
    return this.upstreamStarting;
  }

  private fromClient(message: JsonRpcMessage): void {
    if (this.closed) return;
    if (isRequest(message)) {
      if (this.downInflight.has(message.id)) {
        const why = `request id ${JSON.stringify(message.id)} is already in use`;
        if (message.method === 'tools/call') this.hooks.onRefused?.(this, callOf(message, why));
        this.toClient(errorResponse(message.id, ErrorCode.InvalidRequest, why));
        return;
      }
      const envelope = this.era.observe(message);
      if (envelope?.clientInfo) this.clientInfo = envelope.clientInfo;
      if (message.method === 'initialize') {
        const info = message.params?.clientInfo as { name?: unknown; version?: unknown } | undefined;
        this.clientInfo = {
          name: typeof info?.name === 'string' ? info.name : undefined,
          version: typeof info?.version === 'string' ? info.version : undefined,
        };
        this.clientElicits = formElicitation(message.params?.capabilities);
      }
      if (message.method === 'tools/call') {
        countToolCall();
        this.handleToolCall(message);
        return;
      }
      this.forwardRequest(message);
      return;
    }
    if (isNotification(message)) {
      if (message.method === 'notifications/cancelled') {
        this.clientCancelled(message);
        return;
      }
      if (message.method === 'notifications/initialized') this.initialized = true;
      void this.sendUpstream(message);
      return;
    }
    if (isResponse(message)) {
      const own = typeof message.id === 'string' ? this.ownRequests.get(message.id) : undefined;
      if (own) {
        own(message);
        return;
      }
      // The client answers a request the server made (sampling, elicitation, roots/list, ping).
      const key = String(message.id);
      const upId = typeof message.id === 'string' ? this.serverRequests.get(key) : undefined;
      if (upId === undefined) return; // stray, duplicate or foreign: dropped
      this.serverRequests.delete(key);
      void this.sendUpstream({ ...message, id: upId });
    }
  }

  private forwardRequest(message: JsonRpcRequest, call?: Omit<ForwardedCall, 'upId'>): number {
    const upId = this.track(message, call);
    const up = this.upstream;
    const line = call && up?.sendLine && this.upstreamReady && !this.upstreamGoneReason ? this.hooks.requestLine?.(message, upId) : undefined;
    if (line) void up!.sendLine!(line).catch((err: Error) => this.sendFailed(err, message, message.id));
    else void this.sendUpstream({ ...message, id: upId }, message.id);
    return upId;
  }

  /** Registers a request as forwarded under a new upstream id, which it returns. */
  private track(message: Pick<JsonRpcRequest, 'id' | 'method' | 'params'>, call?: Omit<ForwardedCall, 'upId'>): number {
    const upId = this.nextUpId++;
    this.upPending.set(upId, {
      downId: message.id,
      method: message.method,
      call: call ? { ...call, upId, sentAt: performance.now() } : undefined,
      hadCursor: message.params?.cursor !== undefined,
    });
    const inflight = this.downInflight.get(message.id) ?? { method: message.method };
    inflight.upId = upId;
    inflight.abort = undefined;
    this.downInflight.set(message.id, inflight);
    return upId;
  }

  // The fast lane (`connect`, relay-mode/fast-lane.ts) passes messages as their own bytes with only the id
  // changed. These do the bookkeeping of the ordinary path; undefined means: take the ordinary path.

  private canPass(id: JsonRpcId): boolean {
    return !this.closed && this.upstreamReady && !this.upstreamGoneReason && !this.downInflight.has(id);
  }

  /** A request that needs nothing but its id changed: the upstream id to write it with. */
  passRequest(id: JsonRpcId, method: string): number | undefined {
    return this.canPass(id) ? this.track({ id, method }) : undefined;
  }

  /** A tools/call that a quick verdict (a lease) lets through: the upstream id to write it with. */
  passToolCall(request: JsonRpcRequest): number | undefined {
    if (!this.canPass(request.id)) return undefined;
    const params = request.params ?? {};
    // A multi round-trip retry is decided again, with its input shown: the ordinary path.
    if (params.inputResponses !== undefined || params.requestState !== undefined) return undefined;
    // Any part nested too deep: the broker refuses and logs it.
    const quick = tooDeepIn(params) ? undefined : this.hooks.quickVerdict?.(this, typeof params.name === 'string' ? params.name : '', params.arguments);
    if (!quick) return undefined; // decided on the ordinary path, and counted there
    countToolCall();
    const upId = this.track(request, { request, retryOnTimeout: quick.retryOnTimeout, retried: false, onSettled: quick.onSettled, deadline: 0 });
    this.armCallTimer(upId);
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
    const pending = this.closed ? undefined : this.upPending.get(upId);
    if (!pending) return null;
    if (!this.passesAsBytes(pending)) return undefined;
    const passable = pending as UpstreamPending & { downId: JsonRpcId }; // passesAsBytes refuses a null id
    this.upPending.delete(upId);
    this.downInflight.delete(passable.downId);
    return passable;
  }

  /** The client's id of the request the server answers with `upId`, while that answer is awaited. */
  awaitedDownId(upId: number): JsonRpcId | undefined {
    const pending = this.closed ? undefined : this.upPending.get(upId);
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
      if (this.closed) return;
      if (written) send(downId);
      else this.toClient(this.unloggedAnswer(call, downId), downId);
    });
    return true;
  }

  /** Whether passResult could pass the result for `upId` (no change made): the lane skips its scan when not. */
  mayPassResult(upId: number): boolean {
    const pending = this.closed ? undefined : this.upPending.get(upId);
    return pending !== undefined && this.passesAsBytes(pending);
  }

  private passesAsBytes(pending: UpstreamPending): boolean {
    if (pending.downId === null || pending.method === 'initialize' || pending.method === 'tools/list') return false;
    // 2026-07-28: a call's result may be input_required, discover names the server, listen carries its id.
    return !(pending.method === 'server/discover' || pending.method === 'subscriptions/listen' || (this.era.modern && pending.call));
  }

  private sendUpstream(message: JsonRpcMessage, downId?: JsonRpcId): Promise<void> {
    // The common case, kept free of extra promises: every relayed message passes here.
    if (this.upstreamReady && !this.upstreamGoneReason) {
      return this.upstream!.send(message).catch((err: Error) => this.sendFailed(err, message, downId));
    }
    return this.sendWhenReady(message, downId);
  }

  private async sendWhenReady(message: JsonRpcMessage, downId?: JsonRpcId): Promise<void> {
    try {
      if (this.upstreamGoneReason) throw new Error(this.upstreamGoneReason);
      await this.ensureUpstream();
      this.upstreamReady = true;
      await this.upstream!.send(message);
    } catch (err) {
      this.sendFailed(err as Error, message, downId);
    }
  }

  private upstreamReady = false;

  private sendFailed(err: Error, message: JsonRpcMessage, downId?: JsonRpcId): void {
    if (downId !== undefined) {
      this.failDownstream(downId, `Countersign could not reach server '${this.serverName}': ${err.message}`);
    }
    if (isRequest(message) && message.method === 'initialize') void this.close('upstream failed to start');
  }

  private failDownstream(downId: JsonRpcId, text: string, code: number = ErrorCode.ServerUnavailable): void {
    const inflight = this.downInflight.get(downId);
    if (!inflight) return;
    this.downInflight.delete(downId);
    if (inflight.upId !== undefined) {
      const pending = this.upPending.get(inflight.upId);
      this.upPending.delete(inflight.upId);
      if (pending?.call) {
        const outcome: CallOutcome = { status: code === ErrorCode.UpstreamTimeout ? 'timeout' : 'failed', error: text };
        return this.answerLogged(pending.call, outcome, errorResponse(downId, code, text), downId);
      }
    }
    this.toClient(errorResponse(downId, code, text), downId);
  }

  /** A forwarded call's answer goes out once its audit entry is written (a crash then loses no answered call). */
  private answerLogged(call: ForwardedCall, outcome: CallOutcome, answer: JsonRpcMessage, downId: JsonRpcId): void {
    const logged = call.onSettled(outcome);
    if (!logged) return this.toClient(answer, downId);
    void logged.then((written) => this.toClient(written ? answer : this.unloggedAnswer(call, downId), downId));
  }

  private unloggedAnswer(call: ForwardedCall, downId: JsonRpcId): JsonRpcMessage {
    const result = errorResult(`Countersign ran this call but could not write it to its audit log, so its answer is withheld. The entry is kept and written once the log is writable; until then new calls are refused.`);
    return { jsonrpc: '2.0', id: downId, result: shapedResult(result, call.request) };
  }

  private handleToolCall(request: JsonRpcRequest): void {
    const params = request.params ?? {};
    const toolName = typeof params.name === 'string' ? params.name : '';
    const input = this.rounds.continuationOf(request);
    // A continuation is decided again (its input is shown), never under a lease.
    const quick = input || !this.hooks.quickVerdict || tooDeepIn(params) ? undefined : this.hooks.quickVerdict(this, toolName, params.arguments);
    if (quick) {
      const upId = this.forwardRequest(request, { request, retryOnTimeout: quick.retryOnTimeout, retried: false, onSettled: quick.onSettled, deadline: 0 });
      this.armCallTimer(upId);
      return;
    }
    void this.decideAndForward(request, toolName, params, input);
  }

  private async decideAndForward(request: JsonRpcRequest, toolName: string, params: Record<string, unknown>, input?: CallInput): Promise<void> {
    const abort = new AbortController();
    this.downInflight.set(request.id, { method: 'tools/call', abort });
    const progressToken = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const ctx: ToolCallContext = {
      session: this,
      request,
      toolName,
      arguments: params.arguments,
      signal: abort.signal,
      input,
      progressRequested: typeof progressToken === 'string' || typeof progressToken === 'number',
      clientElicits: this.clientElicits,
      askClient: (method, p, signal) => this.askClient(method, p, signal, request.id),
      sendProgress: (progress, message) => {
        if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
        if (abort.signal.aborted) return;
        this.toClient({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, message } }, request.id);
      },
    };
    let verdict: GateVerdict;
    try {
      // Without initialize (2026-07-28), the server says who it is before its first call is decided.
      await this.era.ensureIdentity((p) => this.internalRequest('server/discover', p, false), (identity) => this.hooks.onInitialized?.(this, identity));
      verdict = await this.hooks.decideToolCall(ctx);
    } catch (err) {
      // Fail closed: a call we could not decide never reaches the server; it is logged as refused.
      this.hooks.onRefused?.(this, callOf(request, `it could not be decided (${(err as Error).message})`));
      verdict = { forward: false, result: errorResult(`Countersign could not decide this call, so it was not run: ${(err as Error).message}`) };
    }
    if (abort.signal.aborted || this.closed) {
      if (verdict.forward) void verdict.onSettled({ status: 'cancelled' }); // no answer waits on this entry
      return; // cancelled or closed while waiting: forward nothing
    }
    if (!verdict.forward) {
      this.downInflight.delete(request.id);
      this.toClient({ jsonrpc: '2.0', id: request.id, result: shapedResult(verdict.result, request) }, request.id);
      return;
    }
    const upId = this.forwardRequest(request, {
      request, retryOnTimeout: verdict.retryOnTimeout, retried: false, onSettled: verdict.onSettled, deadline: 0,
      decidedBy: verdict.decidedBy, round: input?.round ?? 1,
    });
    this.armCallTimer(upId);
  }

  /**
   * A request of Countersign's own to the client (on the call's stream, over HTTP). Aborting it tells
   * the client to drop it (notifications/cancelled), e.g. once the call was answered in Countersign.
   */
  askClient(method: string, params: Record<string, unknown>, signal: AbortSignal, related?: JsonRpcId): Promise<unknown> {
    if (this.closed || signal.aborted) return Promise.reject(new Error('no longer waiting'));
    const id = `cs-own-${this.nextOwnId++}`;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (!this.ownRequests.delete(id)) return;
        this.toClient({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'answered elsewhere' } }, related);
        reject(new Error('no longer waiting'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.ownRequests.set(id, (m) => {
        this.ownRequests.delete(id);
        signal.removeEventListener('abort', onAbort);
        if (isResult(m)) resolve(m.result);
        else reject(new Error(isResponse(m) && 'error' in m ? String(m.error.message) : 'the session ended'));
      });
      this.toClient({ jsonrpc: '2.0', id, method, params }, related);
    });
  }

  /**
   * Every forwarded call has a deadline; one timer per session serves them all, set for the earliest.
   * (A timer per call costs more than the relay itself on a fast path.)
   */
  private armCallTimer(upId: number): void {
    const call = this.upPending.get(upId)?.call;
    if (!call) return;
    const timeoutMs = this.hooks.upstreamTimeoutMs();
    call.deadline = performance.now() + timeoutMs;
    if (!this.deadlineTimer) this.scheduleDeadlines(timeoutMs);
  }

  private deadlineTimer?: NodeJS.Timeout;

  private scheduleDeadlines(inMs: number): void {
    this.deadlineTimer = setTimeout(() => this.sweepDeadlines(), Math.max(0, inMs));
    this.deadlineTimer.unref();
  }

  private sweepDeadlines(): void {
    this.deadlineTimer = undefined;
    if (this.closed) return;
    const now = performance.now();
    let next = Infinity;
    for (const [upId, pending] of [...this.upPending]) {
      const deadline = pending.call?.deadline;
      if (deadline === undefined) continue;
      if (deadline <= now) this.callTimedOut(upId);
    }
    for (const pending of this.upPending.values()) if (pending.call) next = Math.min(next, pending.call.deadline);
    if (next !== Infinity) this.scheduleDeadlines(next - now);
  }

  private callTimedOut(upId: number): void {
    const pending = this.upPending.get(upId);
    const call = pending?.call;
    if (!pending || !call || pending.downId === null) return;
    this.upPending.delete(upId);
    void this.sendUpstream({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: upId, reason: 'timed out' } });
    const seconds = Math.round(this.hooks.upstreamTimeoutMs() / 100) / 10;
    if (call.retryOnTimeout && !call.retried) {
      // Only a trusted server's idempotent tool: a second identical call has no further effect.
      const newUp = this.nextUpId++;
      const now = performance.now();
      const first: CallAttempt = {
        status: 'timeout', durationMs: Math.round(now - (call.sentAt ?? now)),
        detail: `No answer within ${seconds} s: Countersign cancelled it and sent the call again (an idempotent tool of a trusted server).`,
      };
      // Its entry says it was sent twice, and how each sending ended.
      const onSettled: Settle = (outcome) => call.onSettled({ ...outcome, attempts: [first, attemptOf(outcome, performance.now() - now)] });
      const retry: ForwardedCall = { ...call, retried: true, upId: newUp, sentAt: now, onSettled };
      this.upPending.set(newUp, { downId: pending.downId, method: 'tools/call', call: retry });
      const inflight = this.downInflight.get(pending.downId);
      if (inflight) inflight.upId = newUp;
      void this.sendUpstream({ ...call.request, id: newUp }, pending.downId);
      this.armCallTimer(newUp);
      return;
    }
    this.upPending.set(upId, pending); // let failDownstream settle it
    this.failDownstream(
      pending.downId,
      `Server '${this.serverName}' did not answer '${String(call.request.params?.name)}' within ${seconds} s${call.retried ? ', even after one retry' : ''}.`,
      ErrorCode.UpstreamTimeout,
    );
  }

  private clientCancelled(message: JsonRpcMessage & { params?: Record<string, unknown> }): void {
    const requestId = message.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const inflight = this.downInflight.get(requestId);
    if (!inflight) return; // nothing of ours to cancel
    if (inflight.abort) {
      // Still waiting for a decision: it simply stops waiting; nothing reaches the server.
      const reason = message.params?.reason;
      inflight.abort.abort({ by: 'client', reason: typeof reason === 'string' ? reason : undefined } satisfies WaitEnd);
      this.downInflight.delete(requestId);
      return;
    }
    if (inflight.upId !== undefined) {
      const pending = this.upPending.get(inflight.upId);
      this.upPending.delete(inflight.upId);
      this.downInflight.delete(requestId);
      if (pending?.call) {
        void pending.call.onSettled({ status: 'cancelled' }); // no answer waits on this entry
      }
      void this.sendUpstream({ ...message, params: { ...message.params, requestId: inflight.upId } });
    }
  }

  private fromServer(message: JsonRpcMessage): void {
    if (this.closed) return;
    if (isResponse(message)) {
      const upId = typeof message.id === 'number' ? message.id : NaN;
      const pending = this.upPending.get(upId);
      if (!pending) return; // stray, duplicate or foreign: dropped
      this.upPending.delete(upId);
      if (pending.downId === null) {
        pending.resolveInternal?.(message);
        return;
      }
      const downId = pending.downId;
      this.downInflight.delete(downId);
      let out: JsonRpcMessage = { ...message, id: downId };
      if (pending.method === 'subscriptions/listen' && subscriptionIdOf(message) !== undefined) out = withSubscriptionId(out, downId);
      if (pending.method === 'initialize' && isResult(message)) {
        const version = message.result.protocolVersion;
        if (typeof version === 'string') this.upstream?.setProtocolVersion?.(version);
        this.hooks.onInitialized?.(this, message.result);
      }
      if (pending.method === 'server/discover') this.era.discovered(message, (identity) => this.hooks.onInitialized?.(this, identity));
      if (pending.method === 'tools/list' && isResult(message)) {
        this.catalog.recordPage(message.result, pending.hadCursor === true);
        const page = Array.isArray(message.result.tools) ? (message.result.tools as ToolDefinition[]) : [];
        const shown = this.hooks.rewriteToolsList?.(this, page);
        if (shown instanceof Promise) {
          const result = message.result;
          // Fail closed: tools we could not check against the record are not shown.
          shown.then(
            (tools) => this.toClient(tools ? { ...message, id: downId, result: { ...result, tools } } : out, downId),
            (err: Error) => this.toClient(errorResponse(downId, ErrorCode.ServerUnavailable, `Countersign could not check this server's tools: ${err.message}`), downId),
          );
          return;
        }
        if (shown) out = { ...message, id: downId, result: { ...message.result, tools: shown } };
      }
      if (!pending.call) return this.toClient(out, downId);
      let outcome: CallOutcome;
      if (isResult(message) && isInputRequired(message.result)) {
        // Not run: the server wants input first. The retry is recognised as this call continuing.
        this.rounds.record(pending.call.request, message.result, pending.call.decidedBy, pending.call.round ?? 1);
        outcome = { status: 'input-required', detail: describeRequested(inputRequested(message.result)) };
        return this.relayInputRequired(pending.call, message.result, outcome, out, downId);
      } else if (isResult(message)) {
        outcome = { status: message.result.isError === true ? 'error' : 'ok' };
      } else {
        outcome = { status: 'failed', error: message.error.message };
      }
      this.answerLogged(pending.call, outcome, out, downId);
      return;
    }
    if (isRequest(message)) {
      // Which calls it may belong to: stdio carries no link, so every call still running upstream.
      const calls = [...this.upPending.values()].flatMap((p) => (p.call ? [String(p.call.request.params?.name)] : []));
      const ours = `cs-${this.nextServerReqId++}`;
      this.serverRequests.set(ours, message.id);
      if (message.method === 'elicitation/create') return this.relayElicitation(message, ours, calls);
      this.hooks.onServerRequest?.(this, message, calls);
      this.toClient({ ...message, id: ours });
      return;
    }
    if (isNotification(message)) {
      const subscription = subscriptionIdOf(message);
      if (subscription !== undefined) {
        // Stamped with our listen request's id: the client knows it by its own.
        const listen = typeof subscription === 'number' ? this.upPending.get(subscription) : undefined;
        if (listen?.method !== 'subscriptions/listen' || listen.downId === null) return; // no such subscription here
        this.toClient(withSubscriptionId(message, listen.downId), listen.downId);
        if (message.method === 'notifications/tools/list_changed') this.listChanged();
        return;
      }
      if (message.method === 'notifications/cancelled') {
        const theirs = message.params?.requestId;
        for (const [ours, upId] of this.serverRequests) {
          if (upId === theirs) {
            this.serverRequests.delete(ours);
            this.toClient({ ...message, params: { ...message.params, requestId: ours } });
          }
        }
        return;
      }
      if (message.method === 'notifications/progress') this.progressFromServer(message.params?.progressToken);
      if (message.method === 'notifications/tools/list_changed') {
        this.listChanged(message);
        return;
      }
      this.toClient(message);
    }
  }

  /**
   * A server's form (2025-11-25: its own request) goes to the client marked as the server's. One that
   * imitates Countersign's approval form is declined for the server while inline approval is on here.
   */
  private relayElicitation(message: JsonRpcRequest, ours: string, calls: string[]): void {
    const params = message.params ?? {};
    const relay = (): void => {
      this.hooks.onServerRequest?.(this, message, calls);
      // Cancelled by the server, or the session ended, while Countersign looked: nothing to relay.
      if (this.closed || !this.serverRequests.has(ours)) return;
      this.toClient({ ...message, id: ours, params: markedParams(this.serverName, params) });
    };
    const why = imitation(params);
    if (!why) return relay();
    void this.refusesImitation().then((refuse) => {
      if (!refuse) return relay();
      this.serverRequests.delete(ours);
      this.hooks.onServerRequest?.(this, message, calls, why);
      if (!this.closed) void this.sendUpstream({ jsonrpc: '2.0', id: message.id, result: { action: 'decline' } });
    });
  }

  /**
   * A call's input_required result (2026-07-28): each form it asks for goes to the client marked as the
   * server's. One that imitates Countersign's form, while inline approval is on here, ends the call with
   * Countersign's refusal instead (the server holds no state for it: the round simply ends), logged.
   */
  private relayInputRequired(call: ForwardedCall, result: Record<string, unknown>, outcome: CallOutcome, out: JsonRpcMessage, downId: JsonRpcId): void {
    const requests = result.inputRequests;
    const forms = typeof requests === 'object' && requests !== null && !Array.isArray(requests)
      ? Object.entries(requests as Record<string, unknown>).filter((e): e is [string, { method: string; params?: Record<string, unknown> }] => {
        const r = e[1] as { method?: unknown } | null;
        return typeof r === 'object' && r !== null && r.method === 'elicitation/create';
      })
      : [];
    if (!forms.length) return this.answerLogged(call, outcome, out, downId);
    const marked = { ...(requests as Record<string, unknown>) };
    for (const [key, r] of forms) marked[key] = { ...r, params: markedParams(this.serverName, r.params ?? {}) };
    const answer: JsonRpcMessage = { ...out, result: { ...result, inputRequests: marked } };
    const imitating = forms.flatMap(([key, r]) => {
      const why = imitation(r.params);
      return why ? [{ key, params: r.params ?? {}, why }] : [];
    });
    if (!imitating.length) return this.answerLogged(call, outcome, answer, downId);
    const tool = String(call.request.params?.name);
    void this.refusesImitation().then((refuse) => {
      if (!refuse) return this.answerLogged(call, outcome, answer, downId);
      for (const f of imitating) this.hooks.onServerRequest?.(this, { jsonrpc: '2.0', id: f.key, method: 'elicitation/create', params: f.params }, [tool], f.why);
      const text = `Countersign refused the server's request for input: ${imitating[0]!.why}, while approval inside this client is on, so it could be mistaken for Countersign's own question. The tool did not run.`;
      this.answerLogged(call, outcome, { jsonrpc: '2.0', id: downId, result: shapedResult(errorResult(text), call.request) }, downId);
    });
  }

  /** Whether an imitation of Countersign's form is declined here; unsure (the broker unreachable): declined. */
  private refusesImitation(): Promise<boolean> {
    try {
      return Promise.resolve(this.hooks.refuseImitation?.(this) ?? false).catch(() => true);
    } catch {
      return Promise.resolve(true);
    }
  }

  /**
   * Bursts of list_changed are coalesced: the first passes at once, the rest of the window become one
   * more at its end, and the broker re-lists the tools once per window to compare them with the record.
   */
  private listChanged(message?: JsonRpcMessage): void {
    // Without a message: a subscription's notice, already delivered; only the re-listing is coalesced.
    this.catalog.markStale();
    if (this.listChangedTimer) {
      if (message) this.listChangedPending = message;
      else this.listChangedAgain = true;
      return;
    }
    if (message) this.toClient(message);
    this.refreshAfterChange();
    this.listChangedTimer = setTimeout(() => {
      this.listChangedTimer = undefined;
      const next = this.listChangedPending;
      const again = this.listChangedAgain;
      this.listChangedPending = undefined;
      this.listChangedAgain = false;
      if ((next || again) && !this.closed) this.listChanged(next);
    }, LIST_CHANGED_WINDOW_MS);
    this.listChangedTimer.unref();
  }

  private listChangedTimer?: NodeJS.Timeout;
  private listChangedPending?: JsonRpcMessage;
  private listChangedAgain = false;

  private refreshAfterChange(): void {
    this.hooks.onToolsChanged?.(this);
    if (!this.initialized && !this.era.modern) return; // 2026-07-28 has no initialize to wait for
    this.catalog.refresh().catch(() => undefined);
  }

  /** Tells the client to list its tools again (after a person accepted changed definitions). */
  notifyToolsChanged(): void {
    this.toClient({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  /** Upstream progress on a forwarded call shows it is alive: restart its timeout. */
  private progressFromServer(token: unknown): void {
    if (token === undefined) return;
    for (const [upId, pending] of this.upPending) {
      const meta = pending.call?.request.params?._meta as { progressToken?: unknown } | undefined;
      if (meta?.progressToken === token) this.armCallTimer(upId);
    }
  }

  /** Changes whenever the known definitions may have: a new listing, or the server saying they changed. */
  get toolsGeneration(): number {
    return this.catalog.generation;
  }

  /** Fails every request still in flight with `why`, then closes (the broker behind `connect` went away). */
  async end(why: string): Promise<void> {
    for (const [downId, inflight] of [...this.downInflight]) {
      inflight.abort?.abort({ by: 'session', why } satisfies WaitEnd);
      this.failDownstream(downId, why);
    }
    await this.close(why);
  }

  /** The tool's definition, listing the server's tools ourselves when we do not know them. */
  toolDefinition(name: string): Promise<ToolDefinition | undefined> {
    return this.catalog.definition(name);
  }

  /** Lists every page of the server's tools (the broker's own request, never shown to the client). */
  fetchTools(): Promise<void> {
    return this.catalog.refresh();
  }

  /** A request of the broker's own to the server; its answer never reaches the client. */
  private internalRequest(method: string, params: Record<string, unknown>, envelope = true): Promise<Record<string, unknown>> {
    if (envelope) params = this.era.ownParams(params);
    const upId = this.nextUpId++;
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.upPending.delete(upId);
        const i = this.onUpstreamGone.indexOf(gone);
        if (i !== -1) this.onUpstreamGone.splice(i, 1);
      };
      const gone = (): void => {
        done();
        reject(new Error(this.upstreamGoneReason ?? `server '${this.serverName}' went away`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`server '${this.serverName}' did not answer ${method}`));
      }, this.hooks.upstreamTimeoutMs());
      timer.unref();
      this.onUpstreamGone.push(gone);
      this.upPending.set(upId, {
        downId: null,
        method,
        resolveInternal: (m) => {
          done();
          if (isResult(m)) resolve(m.result);
          else reject(new Error(`server '${this.serverName}' refused ${method}`));
        },
      });
      this.sendUpstream({ jsonrpc: '2.0', id: upId, method, params }).catch(gone);
    });
  }

  private readonly onUpstreamGone: Array<() => void> = [];

  private upstreamClosed(): void {
    if (this.closed) return;
    const exit = (this.upstream as { exit?: ExitInfo }).exit;
    let why = `Server '${this.serverName}' closed the connection`;
    if (exit?.startError) {
      why = `Server '${this.serverName}' could not be started (${exit.startError})`;
    } else if (exit) {
      why = `Server '${this.serverName}' stopped (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
      const tail = exit.stderrTail.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
      if (tail) why += `; its last words: ${tail}`;
    }
    this.upstreamGoneReason = why;
    for (const gone of this.onUpstreamGone.splice(0)) gone();
    for (const [downId, inflight] of [...this.downInflight]) {
      inflight.abort?.abort({ by: 'session', why } satisfies WaitEnd);
      const next = exit?.startError ? 'Check its command with `countersign servers list`.' : 'It will be started again for the next session.';
      this.failDownstream(downId, `${why}, while this request was in flight. ${next}`);
    }
    void this.close(why);
  }

  async close(why: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.listChangedTimer);
    clearTimeout(this.deadlineTimer);
    const end: WaitEnd = this.clientGone ? { by: 'client', reason: 'the client closed its session' } : { by: 'session', why };
    for (const inflight of this.downInflight.values()) inflight.abort?.abort(end);
    for (const pending of this.upPending.values()) {
      if (pending.call) {
        void pending.call.onSettled({ status: 'cancelled' }); // no answer waits on this entry
      }
    }
    this.upPending.clear();
    this.downInflight.clear();
    for (const gone of this.onUpstreamGone.splice(0)) gone();
    for (const [id, settle] of [...this.ownRequests]) settle({ jsonrpc: '2.0', id, error: { code: ErrorCode.ServerUnavailable, message: 'the session ended' } });
    await Promise.allSettled([this.downstream.close(), this.upstream?.close()]);
    this.hooks.onClosed?.(this);
  }

  get isInitialized(): boolean {
    return this.initialized;
  }
}

const LIST_CHANGED_WINDOW_MS = 250;

/** One sending of a call, from how it ended. */
function attemptOf(outcome: CallOutcome, durationMs: number): CallAttempt {
  const detail = 'error' in outcome ? outcome.error : 'detail' in outcome ? outcome.detail : undefined;
  return { status: outcome.status, durationMs: Math.round(durationMs), ...(detail !== undefined ? { detail } : {}) };
}

/** Form mode: an empty elicitation capability means form (older clients); `{ url }` alone does not. */
export function formElicitation(capabilities: unknown): boolean {
  const e = (capabilities as { elicitation?: unknown } | undefined)?.elicitation;
  if (!e || typeof e !== 'object') return false;
  const modes = e as { form?: unknown; url?: unknown };
  return modes.form !== undefined || modes.url === undefined;
}

export function errorResult(text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true };
}
