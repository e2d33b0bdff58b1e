// The broker's half of a relay-mode session. `connect` relays the client's messages straight to a server
// this broker started (its stdio is `connect`'s data socket); every decision still happens here, through
// the same gate, and every call is logged here. Calls the gate allowed on its own may be repeated under
// a short lease (see LeaseGrant), which the broker revokes the moment anything they rest on changes.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { AuditEntry, CallInput } from '../../../../shared/api.js';
import { serverRequestEntry } from '../../relay/protocol/server-requests.js';
import type { ToolDefinition } from '../../../../shared/tool.js';
import type { LimitsInForce } from '../../../../shared/enforced-limits.js';
import { NO_LIMITS } from '../../../../shared/limits.js';
import { settledFields } from '../../calls/call-gate.js';
import type { WaitEnd } from '../../calls/client-patience.js';
import { errorResult, type CallOutcome, type GateSession, type GateVerdict, type ToolCallContext } from '../../calls/gate-contract.js';
import { refusedCallEntry } from '../../relay/protocol/refused-calls.js';
import { depthRefusal, TOO_DEEP_ARGUMENTS } from '../../checks/argument-depth.js';
import { spawnServer, stopServer, type ExitInfo, type SandboxOptions, type SpawnedServer, type StdioServerSpec } from '../../upstream/server-process.js';
import type { ControlChannel } from '../control-channel.js';
import type { z } from 'zod';
import { LEASE_TTL_MS, type DecideReply, type Report } from '../protocol.js';
import { reportItems, wire } from '../wire-schemas.js';
import { ReportReader } from './report-reader.js';
import { countToolCall } from '../../core/tier-up.js';

/** How long a local read waits for the other `connect` processes of its client to drop their leases. */
const REVOKE_CONFIRM_MS = 2000;
/** How long a closing session waits for the end of `connect`'s report connection (it ends it when it stops). */
const REPORTS_END_MS = 1000;

export interface BrokerHalfDeps {
  spec: StdioServerSpec;
  sandbox?: SandboxOptions;
  decideToolCall(ctx: ToolCallContext): Promise<GateVerdict>;
  upstreamTimeoutMs(): number;
  /** Changes on every revocation: a lease decided across one is not given. */
  leaseEpoch(): number;
  onInitialized(result: Record<string, unknown>): void;
  onListed(tools: ToolDefinition[]): void;
  rewrite(tools: ToolDefinition[]): ToolDefinition[] | undefined;
  audit(entry: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>): void;
  /** A leased call's entry: the same path as the gate's own (its order is the order calls settle), written within ms. */
  auditCall(entry: Omit<AuditEntry, 'seq' | 'prev' | 'hash'>): void;
  /** Writes the entries `fn` makes in one go. */
  batchAudit(fn: () => void): void;
  /** Whether the person let this client answer pending calls in its own form (a server's imitation is then declined). */
  inlineApprovalOn(client: string | undefined): boolean;
  onServerStderr?(text: string): void;
  onServerExit(exit: ExitInfo): void;
  warn(text: string): void;
  onClosed(session: BrokerHalf): void;
}

export class BrokerHalf implements GateSession {
  readonly allowedTools = new Set<string>();
  readonly takesLeases = true;
  clientInfo?: { name?: string; version?: string };
  /** The client declared form-mode elicitation (as `connect` saw its initialize). */
  clientElicits = false;
  /** Single use: the data connection that presents it becomes the server's stdio. */
  readonly attachToken = randomBytes(24).toString('base64url');
  /** Single use: the connection that presents it carries `connect`'s reports (report-reader.ts). */
  readonly reportToken = randomBytes(24).toString('base64url');
  private reports?: ReportReader;
  private closing?: Promise<void>;
  private tools: ToolDefinition[] = [];
  private server?: Promise<SpawnedServer>;
  private spawned?: SpawnedServer;
  private readonly deciding = new Map<number, AbortController>();
  /** Calls forwarded (allowed here, or leased in `connect`) until `connect` reports how they ended. */
  private readonly forwarded = new Map<number, (outcome: CallOutcome, durationMs?: number) => void>();
  private closed = false;
  private started = false;
  private leasesGiven = 0;
  private saidBye = false;
  /** Keys of the schema validators this `connect` has been sent (see schema-export.ts). */
  private readonly schemasSent = new Set<string>();

  constructor(
    readonly id: string,
    readonly serverName: string,
    readonly clientKey: string,
    private readonly channel: ControlChannel,
    private readonly deps: BrokerHalfDeps,
  ) {
    channel.handle('initialized', (p) => {
      const { client, result, elicitation } = wire.initialized.parse(p);
      this.clientInfo = client;
      this.clientElicits = elicitation === true;
      deps.onInitialized(result);
    });
    channel.handle('listed', (p) => {
      this.tools = wire.listed.parse(p).tools as ToolDefinition[];
      deps.onListed(this.tools);
    });
    channel.handle('rewrite', (p) => ({ tools: deps.rewrite(wire.rewrite.parse(p).tools as ToolDefinition[]) }));
    channel.handle('decide', async (p) => {
      const d = wire.decide.safeParse(p);
      // A call that cannot be decided is refused, and logged with what can be read of it.
      if (!d.success)
        return this.refuseDecide(p, `Countersign could not read it (${d.error.issues[0]?.path.join('.') ?? ''}: ${d.error.issues[0]?.message ?? 'invalid'})`);
      // Every call `connect` reported before asking is taken first: entries keep the order calls ran in.
      if (d.data.reported !== undefined && this.reports) await this.reports.until(d.data.reported);
      if (this.closed) return this.refuseDecide(p, 'the session had ended');
      return this.decide(d.data);
    });
    channel.handle('refused', (p) => {
      const call = wire.refused.parse(p);
      deps.audit(refusedCallEntry(serverName, this.clientInfo?.name, { ...call, arguments: call.arguments }));
    });
    channel.handle('server-request', (p) => {
      const { method, params, calls, declined } = wire.serverRequest.parse(p);
      deps.audit(serverRequestEntry(serverName, this.clientInfo?.name, method, params, calls, declined));
    });
    channel.handle('imitation', () => ({ refuse: deps.inlineApprovalOn(this.clientInfo?.name) }));
    channel.handle('cancel', (p) => {
      const c = wire.cancel.parse(p);
      const end: WaitEnd = c.by === 'client' ? { by: 'client', reason: c.reason } : { by: 'session', why: c.reason ?? 'the connect session ended' };
      this.deciding.get(c.call)?.abort(end);
    });
    // Reports come on their own connection (attachReports); a `connect` without one sends them here.
    channel.handle('report', (p) => {
      const items = reportItems(p);
      deps.batchAudit(() => this.report(items));
    });
    channel.handle('bye', () => void (this.saidBye = true));
    channel.onclose = () => {
      // Every leased call was reported before it ran; one still running is logged as not finished.
      if (!this.saidBye && this.leasesGiven > 0) {
        deps.warn(`The connect process of a '${serverName}' session ended abruptly: calls it was still running are logged as not finished.`);
      }
      void this.close('connect closed the session');
    };
  }

  /** What `connect` reports: a leased call (before it runs), and how each forwarded call ended (logged then). */
  private report(items: Report[]): void {
    for (const item of items) {
      if (item.kind === 'settled') {
        this.forwarded.get(item.call)?.(item.outcome, item.durationMs);
        this.forwarded.delete(item.call);
        continue;
      }
      const { call } = item;
      countToolCall();
      // A closed session has settled everything already: a late report is logged as not finished.
      // Without connect's own timing, from call.time: a wall-clock stamp from connect's process (the
      // duration clock, core/clock.ts, does not cross processes).
      const settle = (outcome: CallOutcome, durationMs?: number): void =>
        this.deps.auditCall({
          time: call.time,
          server: this.serverName,
          tool: call.tool,
          arguments: call.arguments,
          decision: 'allow',
          decidedBy: call.decidedBy,
          reasons: call.reasons,
          durationMs: durationMs ?? Math.max(0, Date.now() - Date.parse(call.time)),
          client: this.clientInfo?.name,
          ...settledFields(outcome),
        });
      if (this.closed) settle({ status: 'failed', error: 'The session ended before the call finished.' });
      else this.forwarded.set(call.call, settle);
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get upstreamTimeoutMs(): number {
    return this.deps.upstreamTimeoutMs();
  }

  /** After the handshake reply is on its way: nothing may be written on the socket before it. */
  async start(): Promise<void> {
    await this.channel.start();
    this.started = true;
  }

  async toolDefinition(name: string): Promise<ToolDefinition | undefined> {
    // `connect` may have to list the tools upstream first, which has its own timeout.
    const reply = wire.definition.parse(await this.channel.request('definition', { name }, this.deps.upstreamTimeoutMs() + 5000));
    return reply.definition as ToolDefinition | undefined;
  }

  knownTools(): ToolDefinition[] {
    return this.tools;
  }

  notifyToolsChanged(): void {
    if (this.started) this.channel.notify('tools-changed', {});
  }

  /** Ends `connect`'s leases: all of them, or (history) those given before the client read local data. */
  revoke(history = false): void {
    // Before start `connect` holds no lease, and its socket still waits for the handshake reply.
    if (this.started) this.channel.notify('revoke', history ? { history: true } : {});
  }

  /**
   * Ends the leases given before the client read local data, and resolves once `connect` confirms it
   * has (messages on the control socket are handled in order, so no lease granted earlier survives).
   * A `connect` that does not answer in time is cut off: its leases cannot be trusted.
   */
  async revokeConfirmed(): Promise<void> {
    if (!this.started || this.closed) return;
    try {
      await this.channel.request('revoke', { history: true }, REVOKE_CONFIRM_MS);
    } catch (err) {
      await this.close(`its connect process did not confirm a lease revocation (${(err as Error).message})`);
    }
  }

  /** The limits its server process started under, and how they stand (once it has started). */
  get limitsInForce(): LimitsInForce | undefined {
    const enforcement = this.spawned?.enforcement;
    return enforcement ? { limits: this.deps.sandbox?.limits ?? NO_LIMITS, enforcement } : undefined;
  }

  /** `connect`'s report connection (its handshake read): false when this session has one or is closed. */
  attachReports(socket: Socket): boolean {
    if (this.reports || this.closing) return false;
    this.reports = new ReportReader(
      socket,
      (lines) =>
        this.deps.batchAudit(() => {
          for (const line of lines) {
            try {
              this.report(reportItems(JSON.parse(line.toString('utf8')) as Record<string, unknown>));
            } catch {
              // A bad report is dropped, as a bad notification on the control socket is.
            }
          }
        }),
      (why) => void this.close(`its report connection broke (${why})`),
    );
    return true;
  }

  /** Takes the reports waiting in the kernel (before the log is read). */
  async drainReports(): Promise<void> {
    await this.reports?.drain();
  }

  /** Starts the server with the data connection as its stdin and stdout. */
  attach(socket: Socket): void {
    if (this.server || this.closed) {
      socket.destroy();
      return;
    }
    this.server = spawnServer(this.deps.spec, [socket, socket], this.deps.onServerStderr, this.deps.sandbox);
    void this.server.then((server) => {
      this.spawned = server;
      // The server holds its own copy of the descriptor; ours must go, or `connect` never sees its end.
      socket.destroy();
      this.watch(server);
    });
  }

  private watch(server: SpawnedServer): void {
    server.started.then(
      () => this.channel.notify('upstream', { ok: true }),
      (err: Error) => this.channel.notify('upstream', { ok: false, error: err.message }),
    );
    void server.exited.then((exit) => {
      if (this.closed) return;
      this.deps.onServerExit(exit);
      this.channel.notify('exited', exit);
    });
  }

  /** A `decide` that is not decided: logged as refused, and answered so that nothing runs. */
  private refuseDecide(p: Record<string, unknown>, why: string): DecideReply {
    const args = p.tooDeepIn !== undefined || depthRefusal(p.arguments) ? TOO_DEEP_ARGUMENTS : p.arguments;
    this.deps.audit(
      refusedCallEntry(this.serverName, this.clientInfo?.name, { tool: typeof p.tool === 'string' ? p.tool : '', arguments: args, certain: true, reason: why }),
    );
    return {
      forward: false,
      result: errorResult(`Countersign refused this call before deciding it: ${why}. It was not run.`),
      upstreamTimeoutMs: this.deps.upstreamTimeoutMs(),
    };
  }

  private async decide(p: z.infer<typeof wire.decide>): Promise<DecideReply> {
    countToolCall();
    const abort = new AbortController();
    this.deciding.set(p.call, abort);
    const epoch = this.deps.leaseEpoch();
    let verdict: GateVerdict;
    try {
      verdict = await this.deps.decideToolCall({
        session: this,
        request: { jsonrpc: '2.0', id: p.call, method: 'tools/call', params: { name: p.tool, arguments: p.arguments } },
        toolName: p.tool,
        arguments: p.arguments,
        tooDeepIn: p.tooDeepIn,
        signal: abort.signal,
        progressRequested: p.progress === true,
        clientElicits: this.clientElicits,
        askClient: (method, params, signal) => this.askClient(p.call, method, params, signal),
        input: p.input as CallInput | undefined,
        sendProgress: (progress, message) => this.channel.notify('progress', { call: p.call, progress, message }),
      });
    } finally {
      this.deciding.delete(p.call);
    }
    const upstreamTimeoutMs = this.deps.upstreamTimeoutMs();
    if (!verdict.forward) return { forward: false, result: verdict.result, upstreamTimeoutMs };
    if (this.closed) {
      // Logged as allowed and cancelled: the answer says so, and nothing runs.
      verdict.onSettled({ status: 'cancelled' });
      return { forward: false, result: errorResult('The session ended before this call could run. It was not run.'), upstreamTimeoutMs };
    }
    this.forwarded.set(p.call, verdict.onSettled);
    let lease = verdict.lease && this.deps.leaseEpoch() === epoch ? { ...verdict.lease, ttlMs: LEASE_TTL_MS } : undefined;
    if (lease?.schema) {
      // Its validator's code goes to this `connect` once; later leases name it by key.
      const { key } = lease.schema;
      if (this.schemasSent.has(key)) lease = { ...lease, schema: { key } };
      else this.schemasSent.add(key);
    }
    if (lease) this.leasesGiven += 1;
    return { forward: true, retryOnTimeout: verdict.retryOnTimeout, lease, upstreamTimeoutMs, decidedBy: verdict.decidedBy };
  }

  /** Asks the client through `connect`; aborting tells `connect` to cancel the client's request. */
  private async askClient(call: number, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) throw new Error('no longer waiting');
    const onAbort = (): void => this.channel.notify('elicit-cancel', { call });
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const reply = await Promise.race([
        this.channel.request<{ result: unknown }>('elicit', { call, method, params }),
        new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('no longer waiting')), { once: true })),
      ]);
      return reply.result;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  close(why: string): Promise<void> {
    this.closing ??= this.shut(why);
    return this.closing;
  }

  private async shut(why: string): Promise<void> {
    if (this.started) this.channel.notify('close', { why });
    // Every report `connect` wrote is read first (it ends the connection when it stops, or died): those
    // calls are logged as they ended, and only the rest as not finished.
    await this.reports?.toEnd(REPORTS_END_MS);
    this.closed = true;
    for (const abort of this.deciding.values()) abort.abort({ by: 'session', why } satisfies WaitEnd);
    for (const settle of this.forwarded.values()) settle({ status: 'failed', error: `The session ended before the call finished (${why}).` });
    this.forwarded.clear();
    await this.channel.close().catch(() => undefined);
    if (this.server) await stopServer(await this.server);
    this.deps.onClosed(this);
  }
}
