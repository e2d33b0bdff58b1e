// One client session relayed to its own upstream connection: the message routing. Messages pass at the
// message level, unchanged, except what we must intercept: tools/call requests, tools/list results and
// tools/list_changed. The parts live beside it: id remapping (id-maps.ts), the byte pass-through
// (byte-pass.ts), deadlines and retry (call-deadlines.ts), Countersign's own requests (own-requests.ts),
// a call's decision (call-decision.ts), the server's forms (server-forms.ts), list_changed (list-changed.ts).
import {
  errorResponse,
  ErrorCode,
  isNotification,
  isRequest,
  isResponse,
  isResult,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResult,
} from '../../../shared/jsonrpc.js';
import type { ToolDefinition } from '../../../shared/tool.js';
import type { ExitInfo } from '../upstream/stdio-upstream.js';
import type { WaitEnd } from '../calls/client-patience.js';
import type { CallOutcome, GateSession, GateVerdict, ToolCallContext } from '../calls/gate-contract.js';
import { ToolCatalog } from '../calls/tool-catalog.js';
import { SessionEra } from './protocol/session-era.js';
import { subscriptionIdOf, withSubscriptionId } from './protocol/subscriptions.js';
import { describeRequested, inputRequested, InputRounds, isInputRequired } from './protocol/input-rounds.js';
import { formElicitation } from './protocol/elicitation-guard.js';
import type { MessageTransport } from '../wire/transport.js';
import { countToolCall } from '../core/tier-up.js';
import { tooDeepIn } from '../checks/argument-depth.js';
import { callOf, type RefusedCall } from './protocol/refused-calls.js';
import { IdMaps, ServerRequestIds, type ForwardedCall } from './id-maps.js';
import { CallDeadlines } from './call-deadlines.js';
import { BytePass } from './byte-pass.js';
import { ClientAsks, ServerAsks } from './own-requests.js';
import { ServerForms } from './server-forms.js';
import { ListChanged } from './list-changed.js';
import { answerLogged, serverGone } from './call-answers.js';
import { decideAndForward, type DecisionHost } from './call-decision.js';
import type { RelayHooks } from './session-hooks.js';

/** What the broker (or `connect`) does at a session's turning points, the call gate first. */
export type SessionHooks = RelayHooks<RelaySession>;

export class RelaySession implements GateSession {
  clientInfo?: { name?: string; version?: string };
  readonly allowedTools = new Set<string>();
  /** The client declared form-mode elicitation in its initialize request. */
  clientElicits = false;
  /** The byte pass-through of `connect`'s fast lane and HTTP's lanes. */
  readonly bytes: BytePass;
  private upstream?: MessageTransport;
  private upstreamStarting?: Promise<void>;
  private upstreamReady = false;
  private upstreamGoneReason?: string;
  private readonly ids = new IdMaps();
  private readonly serverIds = new ServerRequestIds();
  private readonly deadlines: CallDeadlines;
  private readonly toServer: ServerAsks;
  private readonly toClientAsks: ClientAsks;
  private readonly forms: ServerForms;
  private readonly listChanged: ListChanged;
  private readonly decision: DecisionHost;
  private readonly catalog: ToolCatalog;
  /** Which revision the client speaks: 2026-07-28 envelopes, identity without initialize. */
  private readonly era = new SessionEra();
  /** Calls the server answered with input_required, until their retry. */
  private readonly rounds = new InputRounds();
  private closed = false;
  /** The client closed its side: calls still waiting were abandoned by the agent, not ended by us. */
  private clientGone = false;
  private initialized = false;

  constructor(
    readonly serverName: string,
    readonly clientKey: string,
    private readonly downstream: MessageTransport,
    private readonly openUpstream: () => MessageTransport,
    private readonly hooks: SessionHooks,
    readonly id: string,
  ) {
    const isClosed = (): boolean => this.closed;
    const toClient = this.sendToClient;
    const timeoutMs = (): number => this.hooks.upstreamTimeoutMs();
    const { ids, serverIds } = this;
    this.catalog = new ToolCatalog(
      (cursor) => this.internalRequest('tools/list', cursor === undefined ? {} : { cursor }),
      (tools) => this.hooks.onToolsListed?.(this, tools),
    );
    this.deadlines = new CallDeadlines({
      ids,
      serverName,
      isClosed,
      timeoutMs,
      sendUpstream: (m, downId) => void this.sendUpstream(m, downId),
      failDownstream: (downId, text, code) => this.failDownstream(downId, text, code),
    });
    this.bytes = new BytePass({
      ids,
      isClosed,
      toClient,
      upstreamOpen: () => this.upstreamReady && !this.upstreamGoneReason,
      modern: () => this.era.modern,
      quickVerdict: (toolName, args) => this.hooks.quickVerdict?.(this, toolName, args),
      armDeadline: (upId) => this.deadlines.arm(upId),
    });
    this.toServer = new ServerAsks({
      ids,
      serverName,
      timeoutMs,
      goneReason: () => this.upstreamGoneReason,
      sendUpstream: (m) => this.sendUpstream(m),
    });
    this.toClientAsks = new ClientAsks(toClient, isClosed);
    this.forms = new ServerForms({
      serverName,
      serverIds,
      isClosed,
      toClient,
      onServerRequest: (message, calls, declined) => this.hooks.onServerRequest?.(this, message, calls, declined),
      refuseImitation: () => this.hooks.refuseImitation?.(this) ?? false,
      sendUpstream: (m) => void this.sendUpstream(m),
      answerLogged: (call, outcome, answer, downId) => this.answerLogged(call, outcome, answer, downId),
    });
    this.listChanged = new ListChanged({
      isClosed,
      markStale: () => this.catalog.markStale(),
      deliver: (m) => this.toClient(m),
      refresh: () => this.refreshAfterChange(),
    });
    this.decision = {
      session: this,
      ids,
      isClosed,
      toClient,
      clientElicits: () => this.clientElicits,
      ensureIdentity: () =>
        this.era.ensureIdentity(
          (p) => this.internalRequest('server/discover', p, false),
          (identity) => this.hooks.onInitialized?.(this, identity),
        ),
      decide: (ctx) => this.hooks.decideToolCall(ctx),
      refused: (call) => this.hooks.onRefused?.(this, call),
      askClient: (method, p, signal, related) => this.askClient(method, p, signal, related),
      forward: (req, call) => this.deadlines.arm(this.forwardRequest(req, call)),
    };
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

  get isInitialized(): boolean {
    return this.initialized;
  }

  /** Definitions as this session's server last listed them. */
  knownTools(): ToolDefinition[] {
    return this.catalog.known();
  }

  /** Changes whenever the known definitions may have: a new listing, or the server saying they changed. */
  get toolsGeneration(): number {
    return this.catalog.generation;
  }

  /** The tool's definition, listing the server's tools ourselves when we do not know them. */
  toolDefinition(name: string): Promise<ToolDefinition | undefined> {
    return this.catalog.definition(name);
  }

  /** Lists every page of the server's tools (the broker's own request, never shown to the client). */
  fetchTools(): Promise<void> {
    return this.catalog.refresh();
  }

  /** Tells the client to list its tools again (after a person accepted changed definitions). */
  notifyToolsChanged(): void {
    this.toClient({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  /** A request of Countersign's own to the client (see ClientAsks.ask). */
  askClient(method: string, params: Record<string, unknown>, signal: AbortSignal, related?: JsonRpcId): Promise<unknown> {
    return this.toClientAsks.ask(method, params, signal, related);
  }

  private readonly sendToClient = (message: JsonRpcMessage, related?: JsonRpcId): void => this.toClient(message, related);

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
      if (this.ids.down.has(message.id)) {
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
      if (this.toClientAsks.answered(message)) return;
      // The client answers a request the server made (sampling, elicitation, roots/list, ping).
      const upId = typeof message.id === 'string' ? this.serverIds.take(message.id) : undefined;
      if (upId === undefined) return; // stray, duplicate or foreign: dropped
      void this.sendUpstream({ ...message, id: upId });
    }
  }

  private forwardRequest(message: JsonRpcRequest, call?: Omit<ForwardedCall, 'upId'>): number {
    const upId = this.ids.track(message, call);
    const up = this.upstream;
    const line = call && up?.sendLine && this.upstreamReady && !this.upstreamGoneReason ? this.hooks.requestLine?.(message, upId) : undefined;
    if (line) void up!.sendLine!(line).catch((err: Error) => this.sendFailed(err, message, message.id));
    else void this.sendUpstream({ ...message, id: upId }, message.id);
    return upId;
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

  private sendFailed(err: Error, message: JsonRpcMessage, downId?: JsonRpcId): void {
    if (downId !== undefined) {
      this.failDownstream(downId, `Countersign could not reach server '${this.serverName}': ${err.message}`);
    }
    if (isRequest(message) && message.method === 'initialize') void this.close('upstream failed to start');
  }

  private failDownstream(downId: JsonRpcId, text: string, code: number = ErrorCode.ServerUnavailable): void {
    const inflight = this.ids.down.get(downId);
    if (!inflight) return;
    this.ids.down.delete(downId);
    if (inflight.upId !== undefined) {
      const pending = this.ids.up.get(inflight.upId);
      this.ids.up.delete(inflight.upId);
      if (pending?.call) {
        const outcome: CallOutcome = { status: code === ErrorCode.UpstreamTimeout ? 'timeout' : 'failed', error: text };
        return this.answerLogged(pending.call, outcome, errorResponse(downId, code, text), downId);
      }
    }
    this.toClient(errorResponse(downId, code, text), downId);
  }

  private answerLogged(call: ForwardedCall, outcome: CallOutcome, answer: JsonRpcMessage, downId: JsonRpcId): void {
    answerLogged(call, outcome, answer, downId, this.sendToClient);
  }

  private handleToolCall(request: JsonRpcRequest): void {
    const params = request.params ?? {};
    const toolName = typeof params.name === 'string' ? params.name : '';
    const input = this.rounds.continuationOf(request);
    // A continuation is decided again (its input is shown), never under a lease.
    const quick = input || !this.hooks.quickVerdict || tooDeepIn(params) ? undefined : this.hooks.quickVerdict(this, toolName, params.arguments);
    if (quick) {
      const upId = this.forwardRequest(request, { request, retryOnTimeout: quick.retryOnTimeout, retried: false, onSettled: quick.onSettled, deadline: 0 });
      this.deadlines.arm(upId);
      return;
    }
    void decideAndForward(this.decision, request, toolName, params, input);
  }

  private clientCancelled(message: JsonRpcMessage & { params?: Record<string, unknown> }): void {
    const upId = this.ids.cancelled(message.params?.requestId, message.params?.reason);
    // Still waiting for a decision, it simply stopped waiting: nothing reaches the server.
    if (upId !== undefined) void this.sendUpstream({ ...message, params: { ...message.params, requestId: upId } });
  }

  private fromServer(message: JsonRpcMessage): void {
    if (this.closed) return;
    if (isResponse(message)) return this.responseFromServer(message);
    if (isRequest(message)) {
      const calls = this.ids.callsRunning();
      const ours = this.serverIds.adopt(message.id);
      if (message.method === 'elicitation/create') return this.forms.relayElicitation(message, ours, calls);
      this.hooks.onServerRequest?.(this, message, calls);
      this.toClient({ ...message, id: ours });
      return;
    }
    if (isNotification(message)) {
      const subscription = subscriptionIdOf(message);
      if (subscription !== undefined) {
        // Stamped with our listen request's id: the client knows it by its own.
        const listen = typeof subscription === 'number' ? this.ids.up.get(subscription) : undefined;
        if (listen?.method !== 'subscriptions/listen' || listen.downId === null) return; // no such subscription here
        this.toClient(withSubscriptionId(message, listen.downId), listen.downId);
        if (message.method === 'notifications/tools/list_changed') this.listChanged.changed();
        return;
      }
      if (message.method === 'notifications/cancelled') {
        for (const ours of this.serverIds.cancel(message.params?.requestId)) {
          this.toClient({ ...message, params: { ...message.params, requestId: ours } });
        }
        return;
      }
      if (message.method === 'notifications/progress') this.deadlines.progress(message.params?.progressToken);
      if (message.method === 'notifications/tools/list_changed') {
        this.listChanged.changed(message);
        return;
      }
      this.toClient(message);
    }
  }

  private responseFromServer(message: JsonRpcResult | JsonRpcError): void {
    const upId = typeof message.id === 'number' ? message.id : NaN;
    const pending = this.ids.up.get(upId);
    if (!pending) return; // stray, duplicate or foreign: dropped
    this.ids.up.delete(upId);
    if (pending.downId === null) {
      pending.resolveInternal?.(message);
      return;
    }
    const downId = pending.downId;
    this.ids.down.delete(downId);
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
          (err: Error) =>
            this.toClient(errorResponse(downId, ErrorCode.ServerUnavailable, `Countersign could not check this server's tools: ${err.message}`), downId),
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
      return this.forms.relayInputRequired(pending.call, message.result, outcome, out, downId);
    } else if (isResult(message)) {
      outcome = { status: message.result.isError === true ? 'error' : 'ok' };
    } else {
      outcome = { status: 'failed', error: message.error.message };
    }
    this.answerLogged(pending.call, outcome, out, downId);
  }

  private refreshAfterChange(): void {
    this.hooks.onToolsChanged?.(this);
    if (!this.initialized && !this.era.modern) return; // 2026-07-28 has no initialize to wait for
    this.catalog.refresh().catch(() => undefined);
  }

  /** Fails every request still in flight with `why`, then closes (the broker behind `connect` went away). */
  async end(why: string): Promise<void> {
    for (const [downId, inflight] of [...this.ids.down]) {
      inflight.abort?.abort({ by: 'session', why } satisfies WaitEnd);
      this.failDownstream(downId, why);
    }
    await this.close(why);
  }

  /** A request of the broker's own to the server; its answer never reaches the client. */
  private internalRequest(method: string, params: Record<string, unknown>, envelope = true): Promise<Record<string, unknown>> {
    return this.toServer.request(method, envelope ? this.era.ownParams(params) : params);
  }

  private upstreamClosed(): void {
    if (this.closed) return;
    const exit = (this.upstream as { exit?: ExitInfo }).exit;
    const why = serverGone(this.serverName, exit);
    this.upstreamGoneReason = why;
    this.toServer.gone();
    for (const [downId, inflight] of [...this.ids.down]) {
      inflight.abort?.abort({ by: 'session', why } satisfies WaitEnd);
      const next = exit?.startError ? 'Check its command with `countersign servers list`.' : 'It will be started again for the next session.';
      this.failDownstream(downId, `${why}, while this request was in flight. ${next}`);
    }
    void this.close(why);
  }

  async close(why: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listChanged.stop();
    this.deadlines.stop();
    const end: WaitEnd = this.clientGone ? { by: 'client', reason: 'the client closed its session' } : { by: 'session', why };
    for (const inflight of this.ids.down.values()) inflight.abort?.abort(end);
    for (const pending of this.ids.up.values()) pending.call?.onSettled({ status: 'cancelled' });
    this.ids.up.clear();
    this.ids.down.clear();
    this.toServer.gone();
    this.toClientAsks.end();
    await Promise.allSettled([this.downstream.close(), this.upstream?.close()]);
    this.hooks.onClosed?.(this);
  }
}
