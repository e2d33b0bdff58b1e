// Relay mode, `connect`'s side: the client's session runs here, in the same RelaySession the broker
// uses, so the only extra hop between client and server is this process. Decisions come from the
// broker over the control socket, or from a lease it gave; every call is reported to its audit log,
// a leased one before it reaches the server.
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { ToolDefinition } from '../../../../shared/tool.js';
import { badLineResponse, LineTransport } from '../../wire/line-transport.js';
import { RelaySession, type SessionHooks } from '../../relay/relay-session.js';
import type { GateVerdict, ToolCallContext } from '../../calls/gate-contract.js';
import type { ExitInfo } from '../../upstream/server-process.js';
import { elapsedMs, monotonicMs } from '../../core/clock.js';
import { depthRefusal, nestingDepth, MAX_ARGUMENT_DEPTH, tooDeepIn, TOO_DEEP_ARGUMENTS } from '../../checks/argument-depth.js';
import { refusedCalls } from '../../relay/protocol/refused-calls.js';
import { LeaseChecks } from './lease-check.js';
import { AttachedUpstream } from './attached-upstream.js';
import { ControlChannel } from '../control-channel.js';
import { isCritical } from '../../../../shared/protected-paths.js';
import { findProtected } from '../../checks/self-protection.js';
import { LeaseCache } from './lease-cache.js';
import { waitEndOf } from '../../calls/client-patience.js';
import type { DecideReply } from '../protocol.js';
import { reportsBeforeCalls } from './report-order.js';
import type { Report } from '../protocol.js';
import { fastLane } from './fast-lane.js';
import { changedTargets } from '../../../../shared/undo.js';
import { isoTime } from './iso-time.js';
import { openReportLink, type ReportLink } from './report-link.js';

export interface RelayModeOptions {
  server: string;
  socketPath: string;
  /** The control connection, its handshake done. */
  control: Socket;
  attachToken: string;
  /** The broker's report socket and this session's token for it (see report-link.ts). */
  reports?: { path: string; token: string };
  upstreamTimeoutMs: number;
  input: Readable;
  output: Writable;
  /** Ends the session in order (reports flushed) when aborted, e.g. on SIGTERM. */
  signal?: AbortSignal;
  onWarning?(text: string): void;
}

/** Runs the session until the client or the broker ends it. */
export async function runRelayMode(opts: RelayModeOptions): Promise<void> {
  const control = opts.control;
  const channel = new ControlChannel(new LineTransport({ input: control, output: control, onCloseStreams: () => control.end() }));
  const leases = new LeaseCache();
  const checks = new LeaseChecks();
  // Reports go on their own connection, which the broker reads in batches; without one (an older
  // broker, or it could not be opened), on the control socket, as before.
  // Opened while the server starts (no round trip added to the cold start); a call is leased only after a
  // decide, long after it is open. Once there, it carries every report (the broker reads the control
  // socket at once, so reports sent there before come first).
  let link: ReportLink | undefined;
  const linking = opts.reports
    ? openReportLink(opts.reports.path, opts.reports.token).then(
        (l) => (link = l),
        () => undefined,
      )
    : undefined;
  // Each report is written at once (report-order.ts): a crash of this process loses no log entry.
  const report = (item: Report): void => {
    if (link) link.send(item);
    else channel.notify('report', { items: [item] });
  };
  const deciding = new Map<number, ToolCallContext>();
  const upstream = new AttachedUpstream(opts.socketPath, opts.attachToken);
  let upstreamTimeoutMs = opts.upstreamTimeoutMs;
  let nextCall = 1;

  // Set up before anything flows: the lane needs the session, which needs the transports.
  const lane = fastLane(
    () => session.bytes,
    () => downstream,
    upstream,
  );
  upstream.takeLine = lane.fromServer;
  const downstream: LineTransport = new LineTransport({
    input: opts.input,
    output: opts.output,
    takeLine: lane.fromClient,
    client: true,
    onBadLine: (bad) => {
      // Always answered, with `"id": null` when no id could be read: silence would leave the client waiting.
      void downstream.send(badLineResponse(bad)).catch(() => undefined);
      opts.onWarning?.(`refused a bad message from the client: ${bad.reason}`);
      // A call among it (or a message that could not be read, which may have been one) goes to the log.
      for (const call of refusedCalls(bad)) channel.notify('refused', call);
    },
  });

  // A call under a lease goes straight on; the broker hears of it (for the log) once it ends.
  const quickVerdict: SessionHooks['quickVerdict'] = (s, tool, args) => {
    const lease = leases.find(tool, s.toolsGeneration);
    if (!lease) return undefined;
    // Self-protection holds under a lease too: a call naming Countersign's files asks the broker.
    if (lease.protect && isCritical(findProtected(args, lease.protect.scope), lease.protect.toolOnlyReads)) return undefined;
    if (depthRefusal(args)) return undefined; // the broker refuses and logs it
    // A call that changes files asks the broker, which keeps them (undo) before it goes on.
    if (changedTargets(tool, args).length) return undefined;
    // The broker checked the schema for the call that earned the lease; each later call is checked here
    // with the validator it sent, and asks the broker (which checks and asks) when it breaks the schema.
    if (lease.schema !== undefined && !checks.passes(lease.schema, args)) return undefined;
    const startedAt = Date.now(); // the entry's time
    const started = monotonicMs();
    const call = nextCall++;
    // Reported now, before it is forwarded: the broker knows of it even if this process dies next.
    report({ kind: 'leased', call: { call, time: isoTime(startedAt), tool, arguments: args, decidedBy: lease.decidedBy, reasons: lease.reasons } });
    return {
      forward: true,
      retryOnTimeout: lease.retryOnTimeout,
      onSettled: (outcome) => report({ kind: 'settled', call, outcome, durationMs: elapsedMs(started) }),
    };
  };

  const decideToolCall = async (ctx: ToolCallContext): Promise<GateVerdict> => {
    const generation = session.toolsGeneration;
    const call = nextCall++;
    deciding.set(call, ctx);
    const cancel = (): void => {
      const end = waitEndOf(ctx.signal);
      channel.notify('cancel', end.by === 'client' ? { call, by: 'client', reason: end.reason } : { call, by: 'session', reason: end.why });
    };
    ctx.signal.addEventListener('abort', cancel, { once: true });
    try {
      // Any part of the call too deep to send (or to hash, show and log): the broker refuses and logs it without it.
      const deep = tooDeepIn(ctx.request.params);
      const argsDeep = deep !== undefined && nestingDepth(ctx.arguments) > MAX_ARGUMENT_DEPTH;
      // `reported`: the broker reads that many report lines before it decides, so entries keep their order.
      const params = {
        call,
        tool: ctx.toolName,
        arguments: argsDeep ? TOO_DEEP_ARGUMENTS : ctx.arguments,
        progress: ctx.progressRequested,
        input: deep ? undefined : ctx.input,
        ...(deep ? { tooDeepIn: deep } : {}),
        ...(link ? { reported: link.written } : {}),
      };
      const reply = await channel.request<DecideReply>('decide', params);
      upstreamTimeoutMs = reply.upstreamTimeoutMs;
      if (!reply.forward) return { forward: false, result: reply.result };
      // Decided on the listing we have now: a lease holds only while that listing does.
      // Without the schema's validator here, no lease: every call of the tool asks the broker.
      if (reply.lease && session.toolsGeneration === generation && (!reply.lease.schema || checks.accept(reply.lease.schema))) {
        leases.grant(ctx.toolName, generation, reply.lease, reply.retryOnTimeout);
      }
      return {
        forward: true,
        retryOnTimeout: reply.retryOnTimeout,
        onSettled: (outcome) => report({ kind: 'settled', call, outcome }),
        decidedBy: reply.decidedBy,
      };
    } finally {
      deciding.delete(call);
      ctx.signal.removeEventListener('abort', cancel);
    }
  };

  const hooks: SessionHooks = {
    decideToolCall,
    quickVerdict,
    onRefused: (_s, call) => channel.notify('refused', call),
    onInitialized: (s, result) => {
      channel.notify('initialized', { client: s.clientInfo, result, elicitation: session.clientElicits });
    },
    onToolsListed: (_s, tools) => channel.notify('listed', { tools }),
    onServerRequest: (_s, request, calls, declined) =>
      channel.notify('server-request', { method: request.method, params: request.params, calls, ...(declined ? { declined } : {}) }),
    refuseImitation: async () => (await channel.request<{ refuse?: unknown }>('imitation', {})).refuse !== false,
    rewriteToolsList: async (_s, tools) => (await channel.request<{ tools?: ToolDefinition[] }>('rewrite', { tools })).tools,
    upstreamTimeoutMs: () => upstreamTimeoutMs,
  };
  // The broker keys the session by its own id; this one only names it here (and needs no node:crypto).
  const session: RelaySession = new RelaySession(opts.server, 'connect', downstream, () => upstream, hooks, `connect-${process.pid}`);

  channel.handle('definition', async (p) => ({ definition: await session.toolDefinition(String(p.name)) }));
  channel.handle('revoke', (p) => leases.revoke(p.history === true));
  channel.handle('tools-changed', () => session.notifyToolsChanged());
  channel.handle('progress', (p) => {
    if (typeof p.call !== 'number' || typeof p.progress !== 'number') return;
    deciding.get(p.call)?.sendProgress(p.progress, typeof p.message === 'string' ? p.message : '');
  });
  // Inline approval: the broker asks the client through this session; an answer in Countersign cancels it.
  const asking = new Map<number, AbortController>();
  channel.handle('elicit', async (p) => {
    const call = typeof p.call === 'number' ? p.call : -1;
    const ctx = deciding.get(call);
    if (!ctx?.askClient || typeof p.method !== 'string') throw new Error('that call is not waiting here');
    const abort = new AbortController();
    asking.set(call, abort);
    try {
      return { result: await ctx.askClient(p.method, (p.params ?? {}) as Record<string, unknown>, abort.signal) };
    } finally {
      asking.delete(call);
    }
  });
  channel.handle('elicit-cancel', (p) => {
    if (typeof p.call === 'number') asking.get(p.call)?.abort();
  });
  channel.handle('upstream', (p) => upstream.upstreamReady(p.ok === true ? { ok: true } : { ok: false, error: String(p.error) }));
  channel.handle('exited', (p) => upstream.exited(exitInfo(p)));
  channel.handle('close', (p) => void session.end(`Countersign ended this session: ${String(p.why)}.`));

  const done = new Promise<void>((resolve) => {
    hooks.onClosed = () => {
      // Its end tells the broker it has every report; then goodbye.
      link?.socket.end();
      channel.notify('bye', {});
      void channel.close().finally(resolve);
    };
    channel.onclose = () => {
      upstream.brokerGone();
      void session.end(
        'Countersign stopped while this request was in flight, so it did not finish. Start Countersign again, then restart this server in your client.',
      );
    };
  });
  opts.signal?.addEventListener('abort', () => void session.close('connect was asked to stop'), { once: true });
  await channel.start();
  control.resume(); // the handshake left it paused
  await session.start();
  await linking;
  reportsBeforeCalls(opts.input, link?.socket ?? control, upstream);
  await done;
  link?.socket.end();
}

function exitInfo(p: Record<string, unknown>): ExitInfo {
  return {
    code: typeof p.code === 'number' ? p.code : null,
    signal: typeof p.signal === 'string' ? (p.signal as NodeJS.Signals) : null,
    stderrTail: typeof p.stderrTail === 'string' ? p.stderrTail : '',
    startError: typeof p.startError === 'string' ? p.startError : undefined,
  };
}
