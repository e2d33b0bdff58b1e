// The broker core in this process: real SDK clients and real SDK McpServers, linked to it by
// asynchronous in-memory transports. No child processes, so races (approve against cancel, a timeout,
// a definition change while a call waits) are cheap to run many times. The servers go through the
// same launch consent, pins and policy as a command: the broker asks `upstream` only once they pass.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Actor, AuditEntry, BrokerEvent, CountersignApi, LogQuery, PendingCall, ServerConfig } from '../../shared/api.js';
import { Broker, type BrokerOptions } from '../../electron/broker/core/broker.js';
import { approveShown, trustShown, type ApiCaller } from './consent.js';
import { linkedPair } from './linked-transport.js';
import { PATIENCE_MS } from './patience.js';

export interface Calls {
  /** Every tools/call that reached one of this server's instances, in order. */
  readonly list: Array<{ tool: string; args: unknown }>;
}

/** Registers the server's tools on a fresh McpServer (one per upstream session). */
export type Define = (server: McpServer, calls: Calls) => void;

export interface InProcessServer {
  calls: Calls;
  /** Live McpServer instances (one per open upstream session). */
  live: McpServer[];
}

export interface InProcess {
  broker: Broker;
  dataDir: string;
  /** The API as the browser UI sees it (actor 'browser'). */
  api: CountersignApi;
  /** `api` by method name, for the consent helpers. */
  call: ApiCaller;
  events: BrokerEvent[];
  serve(name: string, define: Define, opts?: { trusted?: boolean; consent?: boolean }): Promise<InProcessServer>;
  /** `capabilities` and `setup` (handlers) for a client that does more than call tools, e.g. elicitation. */
  connect(name: string, clientName?: string, opts?: { capabilities?: ClientCapabilities; setup?(client: Client): void }): Promise<Client>;
  waitForPending(match?: (c: PendingCall) => boolean, timeoutMs?: number): Promise<PendingCall>;
  waitForEvent(match: (e: BrokerEvent) => boolean, timeoutMs?: number): Promise<BrokerEvent>;
  log(query?: LogQuery): Promise<AuditEntry[]>;
  as(actor: Actor): CountersignApi;
  close(): Promise<void>;
}

/** What a server's config says when it runs in this process. */
export const inProcessConfig = (name: string): ServerConfig => ({ command: 'in-process', args: [name] });

export async function startInProcess(opts: Partial<BrokerOptions> = {}): Promise<InProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cs-inproc-'));
  const servers = new Map<string, { define: Define; state: InProcessServer }>();
  const clients: Client[] = [];
  const broker = new Broker({
    dataDir,
    env: { ...process.env, COUNTERSIGN_HOME: '' },
    ...opts,
    upstream: (_name, config) => {
      if (!('command' in config) || config.command !== 'in-process') return undefined;
      const entry = servers.get(config.args?.[0] ?? '');
      if (!entry) throw new Error(`no in-process server ${config.args?.[0]}`);
      const [brokerEnd, serverEnd] = linkedPair();
      const server = new McpServer({ name: `in-process-${config.args![0]}`, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
      entry.define(server, entry.state.calls);
      entry.state.live.push(server);
      serverEnd.onclose = () => entry.state.live.splice(entry.state.live.indexOf(server), 1);
      void server.connect(serverEnd as unknown as Transport);
      return brokerEnd;
    },
  });
  const api = broker.apiFor('browser');
  const call: ApiCaller = (method, ...args) => (api as unknown as Record<string, (...a: unknown[]) => Promise<never>>)[method]!(...args);
  const events: BrokerEvent[] = [];
  broker.subscribe((e) => events.push(e));
  const until = async <T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return {
    broker,
    dataDir,
    api,
    call,
    events,
    async serve(name, define, o = {}) {
      const state: InProcessServer = { calls: { list: [] }, live: [] };
      servers.set(name, { define, state });
      await api.addServer(name, inProcessConfig(name));
      if (o.consent !== false) await approveShown(call, name);
      if (o.trusted) await trustShown(call, name);
      return state;
    },
    async connect(name, clientName = 'in-process-client', o = {}) {
      const [clientEnd, brokerEnd] = linkedPair();
      await broker.openSession(name, brokerEnd, `in-process:${clientName}:${clients.length}`);
      const client = new Client({ name: clientName, version: '1.0.0' }, o.capabilities ? { capabilities: o.capabilities } : undefined);
      o.setup?.(client);
      await client.connect(clientEnd as unknown as Transport);
      clients.push(client);
      return client;
    },
    waitForPending: (match = () => true, timeoutMs = PATIENCE_MS) => until(() => broker.pending.list().find(match), timeoutMs, 'a pending call'),
    waitForEvent: (match, timeoutMs = PATIENCE_MS) => until(() => events.find(match), timeoutMs, 'an event'),
    log: (query = {}) => api.queryLog(query),
    as: (actor) => broker.apiFor(actor),
    async close() {
      await Promise.allSettled(clients.map((c) => c.close()));
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The arguments the test tools take. */
export const TOOL_ARGS = { path: z.string().optional(), content: z.string().optional(), text: z.string().optional() };

/** A tool that records its calls and answers `ran <tool>`. */
export function recordingTool(server: McpServer, calls: Calls, name: string, annotations: Record<string, boolean>, description = `The ${name} tool.`) {
  return server.registerTool(name, { description, annotations, inputSchema: TOOL_ARGS }, async (args) => {
    calls.list.push({ tool: name, args });
    return { content: [{ type: 'text' as const, text: `ran ${name}` }] };
  });
}
