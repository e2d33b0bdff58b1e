// McpHttpEndpoint over a real node:http server, driven by the real SDK client and by raw fetch.
// The server side is a tiny hand-written responder, not the SDK server, so nothing re-validates messages.
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpHttpEndpoint, type McpEndpointOptions } from '../../electron/broker/http/mcp-endpoint.js';
import type { HttpSessionTransport } from '../../electron/broker/http/mcp-http-session.js';
import { HEADERS_WAIT_MS } from '../../electron/broker/http/sse-stream.js';
import { guardRequest, loopbackHosts, loopbackOrigins, sendRejection } from '../../electron/broker/http/request-guard.js';
import { isRequest, isResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest } from '../../shared/jsonrpc.js';

const TOKEN = 'test-token-0123456789';
const PROTOCOL = '2025-11-25';

interface Harness {
  url: (server?: string) => string;
  endpoint: McpHttpEndpoint;
  sessions: HttpSessionTransport[];
  /** Every message each responder received, in order. */
  received: JsonRpcMessage[];
  closed: string[];
  /** Requests the responder holds without answering (tool "hold"), by id. */
  held: Map<JsonRpcId, { session: HttpSessionTransport; request: JsonRpcRequest }>;
  stop: () => Promise<void>;
}

/** Answers like a minimal MCP server, straight on the HttpSessionTransport. */
function attachResponder(t: HttpSessionTransport, h: Pick<Harness, 'received' | 'closed' | 'held'>): void {
  let nextId = 1000;
  const waiting = new Map<JsonRpcId, (response: JsonRpcMessage) => void>();
  const reply = (id: JsonRpcId, result: Record<string, unknown>): void => {
    void t.send({ jsonrpc: '2.0', id, result });
  };
  t.onclose = () => h.closed.push(t.sessionId);
  t.onmessage = (message) => {
    h.received.push(message);
    if (isResponse(message)) {
      if (message.id !== null) waiting.get(message.id)?.(message);
      return;
    }
    if (!isRequest(message)) return;
    const params = (message.params ?? {}) as Record<string, any>;
    switch (message.method) {
      case 'initialize':
        return reply(message.id, {
          protocolVersion: params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'responder', version: '1.0.0' },
        });
      case 'ping':
        return reply(message.id, {});
      case 'tools/list':
        return reply(message.id, { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
      case 'tools/call': {
        const token = params._meta?.progressToken;
        if (token !== undefined) {
          // No relatedRequestId on purpose: routing by progress token is what is being tested.
          for (const progress of [1, 2]) {
            void t.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress, total: 2 } });
          }
        }
        if (params.name === 'echo') {
          return reply(message.id, { content: [{ type: 'text', text: JSON.stringify(params.arguments ?? {}) }] });
        }
        if (params.name === 'ask') {
          const id = nextId++;
          waiting.set(id, (response) => {
            const text = (response as any).result?.content?.text ?? 'no answer';
            reply(message.id, { content: [{ type: 'text', text: `client said: ${text}` }] });
          });
          void t.send(
            {
              jsonrpc: '2.0',
              id,
              method: 'sampling/createMessage',
              params: { messages: [{ role: 'user', content: { type: 'text', text: 'favourite colour?' } }], maxTokens: 10 },
            },
            { relatedRequestId: message.id },
          );
          return;
        }
        if (params.name === 'notify') {
          // Unrelated to any request: must travel on the standalone GET stream.
          void t.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
          return reply(message.id, { content: [] });
        }
        if (params.name === 'hold') {
          h.held.set(message.id, { session: t, request: message });
          return;
        }
        return void t.send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'unknown tool' } });
      }
      default:
        return void t.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
    }
  };
}

async function startHarness(opts: Partial<McpEndpointOptions> = {}): Promise<Harness> {
  const received: JsonRpcMessage[] = [];
  const closed: string[] = [];
  const held: Harness['held'] = new Map();
  const sessions: HttpSessionTransport[] = [];
  const endpoint = new McpHttpEndpoint({
    onSession: (serverName, opened) => {
      if (serverName !== 'demo' && serverName !== 'other') return `Unknown MCP server '${serverName}'`;
      const transport = opened as HttpSessionTransport; // these tests open sessions with initialize
      sessions.push(transport);
      attachResponder(transport, { received, closed, held });
      void transport.start();
      return undefined;
    },
    ...opts,
  });
  let port = 0;
  // The wrapper the broker will have: guards first, then route /mcp/<server> to the endpoint.
  const server: Server = createServer((req, res) => {
    const guard = guardRequest(req, { allowedHosts: loopbackHosts(port), allowedOrigins: loopbackOrigins(port), token: TOKEN });
    if (!guard.ok) return sendRejection(res, guard);
    const match = /^\/mcp\/([^/?]+)/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    void endpoint.handle(req, res, decodeURIComponent(match[1]!));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: (name = 'demo') => `http://127.0.0.1:${port}/mcp/${name}`,
    endpoint,
    sessions,
    received,
    closed,
    held,
    stop: async () => {
      await endpoint.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const auth = { Authorization: `Bearer ${TOKEN}` };
const bothAccept = { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const jsonAccept = { ...auth, 'Content-Type': 'application/json', Accept: 'application/json' };

function sdkClient(h: Harness, opts: { sessionId?: string; server?: string } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(h.url(opts.server)), {
    requestInit: { headers: auth },
    sessionId: opts.sessionId,
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.onerror = () => {}; // GET-stream ends at teardown are expected
  return { client, transport };
}

function initializeMessage(id: JsonRpcId = 1, extra: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    ...extra,
  };
}

function post(url: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
}

/** Initializes over raw fetch in JSON mode and returns the session id. */
async function rawSession(h: Harness, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await post(h.url(), initializeMessage(1, extra), jsonAccept);
  expect(res.status).toBe(200);
  await res.json();
  const id = res.headers.get('mcp-session-id');
  expect(id).toBeTruthy();
  return id!;
}

/** Incremental SSE reader for a streaming response: collects messages and comment lines. */
function sseReader(res: Response) {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: any[] = [];
  const comments: string[] = [];
  let buffer = '';
  const waitFor = async (count: number, timeoutMs = 5000): Promise<any[]> => {
    const deadline = Date.now() + timeoutMs;
    while (messages.length < count) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out waiting for SSE')), Math.max(0, deadline - Date.now()));
      });
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) throw new Error('SSE stream ended early');
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line);
          if (line.startsWith('data: ')) messages.push(JSON.parse(line.slice(6)));
        }
      }
    }
    return messages.slice(0, count);
  };
  return { messages, comments, waitFor, cancel: () => reader.cancel() };
}

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('McpHttpEndpoint with the SDK client', () => {
  it('initializes, lists and calls tools, streams progress, relays sampling and GET-stream notifications', async () => {
    const h = (harness = await startHarness());
    const { client, transport } = sdkClient(h);
    try {
      const changed: unknown[] = [];
      client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => {
        changed.push(n);
      });
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        expect(request.params.messages[0]?.content).toEqual({ type: 'text', text: 'favourite colour?' });
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'green' } };
      });
      await client.connect(transport);
      // 24 random bytes, base64url: at least 128 bits, as the issue asks (a UUIDv4 has 122).
      expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(h.endpoint.sessionCount).toBe(1);
      expect(client.getServerVersion()).toEqual({ name: 'responder', version: '1.0.0' });

      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['echo']);

      const echoed = await client.callTool({ name: 'echo', arguments: { a: 1, b: ['x'] } });
      expect(echoed.content).toEqual([{ type: 'text', text: '{"a":1,"b":["x"]}' }]);

      const progress: unknown[] = [];
      await client.callTool({ name: 'echo', arguments: { p: true } }, undefined, { onprogress: (p) => progress.push(p) });
      expect(progress).toEqual([
        { progress: 1, total: 2 },
        { progress: 2, total: 2 },
      ]);

      const asked = await client.callTool({ name: 'ask', arguments: {} });
      expect(asked.content).toEqual([{ type: 'text', text: 'client said: green' }]);
      // The sampling answer came back as a plain POST (202) and reached the responder unchanged.
      const samplingAnswer = h.received.find((m) => isResponse(m) && m.id === 1000);
      expect(samplingAnswer).toMatchObject({ result: { model: 'test-model', content: { text: 'green' } } });

      // The SDK opens its GET stream after notifications/initialized; wait until the session has it.
      await until(() => h.sessions[0]!.hasStandaloneStream);
      await client.callTool({ name: 'notify', arguments: {} });
      await until(() => changed.length === 1);

      await transport.terminateSession();
      expect(h.closed).toEqual([h.sessions[0]!.sessionId]);
      expect(h.endpoint.sessionCount).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('answers 404 for an unknown session id, after which the SDK client can re-initialize', async () => {
    const h = (harness = await startHarness());
    const stale = sdkClient(h, { sessionId: 'no-such-session' });
    const fresh = sdkClient(h);
    try {
      await stale.client.connect(stale.transport); // skips initialize because a session id is set
      await expect(stale.client.listTools()).rejects.toMatchObject({ code: 404 });

      await fresh.client.connect(fresh.transport);
      expect((await fresh.client.listTools()).tools).toHaveLength(1);

      // A session id only works for the server it was opened for.
      const res = await post(
        h.url('other'),
        { jsonrpc: '2.0', id: 5, method: 'ping' },
        {
          ...bothAccept,
          'Mcp-Session-Id': fresh.transport.sessionId!,
        },
      );
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
    } finally {
      await stale.client.close();
      await fresh.client.close();
    }
  });

  it('keeps serving while a 40 MB body is refused with 413', async () => {
    const h = (harness = await startHarness());
    const { client, transport } = sdkClient(h);
    try {
      await client.connect(transport);
      const headers = { ...bothAccept, 'Mcp-Session-Id': transport.sessionId! };
      const big = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"blob":"${'x'.repeat(40 * 1024 * 1024)}"}}}`;

      // Content-Length declared: refused before reading. Chunked: refused once the cap is crossed.
      // The server answers and closes while the client is still sending, so read the answer as it
      // arrives (fetch would report the client's own broken pipe instead).
      const declared = uploadReadingEarlyAnswer(h.url(), big, headers, false);
      const chunked = uploadReadingEarlyAnswer(h.url(), big, headers, true);
      const during = client.callTool({ name: 'echo', arguments: { still: 'alive' } });

      for (const res of await Promise.all([declared, chunked])) {
        expect(res.status).toBe(413);
        const body = JSON.parse(res.text) as { error: { message: string } };
        expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
        expect(body.error.message).toContain(`${32 * 1024 * 1024}-byte limit`);
      }
      expect((await during).content).toEqual([{ type: 'text', text: '{"still":"alive"}' }]);
      expect(h.received.some((m) => isRequest(m) && m.id === 9)).toBe(false);
      expect((await client.listTools()).tools).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

/** Sends a body in 1 MiB pieces and resolves with the first answer, even if sending then fails. */
function uploadReadingEarlyAnswer(url: string, body: string, headers: Record<string, string>, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body);
    const req = httpRequest(url, {
      method: 'POST',
      headers: chunked ? headers : { ...headers, 'Content-Length': String(bytes.length) },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    let offset = 0;
    const pump = (): void => {
      while (offset < bytes.length && !req.destroyed) {
        const piece = bytes.subarray(offset, offset + 1024 * 1024);
        offset += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}

describe('McpHttpEndpoint over raw HTTP', () => {
  it('answers application/json-only clients with JSON bodies and the session header', async () => {
    const h = (harness = await startHarness());
    const init = await post(h.url(), initializeMessage(1), jsonAccept);
    expect(init.status).toBe(200);
    expect(init.headers.get('content-type')).toBe('application/json');
    const sessionId = init.headers.get('mcp-session-id')!;
    expect(await init.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: PROTOCOL } });

    const headers = { ...jsonAccept, 'Mcp-Session-Id': sessionId };
    const call = await post(h.url(), { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'echo', arguments: { q: 1 } } }, headers);
    expect(call.status).toBe(200);
    expect(await call.json()).toEqual({ jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: '{"q":1}' }] } });

    const note = await post(h.url(), { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
  });

  it('refuses batches as stdio does (batching left MCP in 2025-06-18): nothing in one reaches the server', async () => {
    const h = (harness = await startHarness());
    const sessionId = await rawSession(h);
    const before = h.received.length;
    const batch = [
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { n: 3 } } },
    ];
    for (const accept of [jsonAccept, bothAccept]) {
      const res = await post(h.url(), batch, { ...accept, 'Mcp-Session-Id': sessionId });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('batches are not supported') },
      });
    }
    const notesOnly = await post(h.url(), [{ jsonrpc: '2.0', method: 'notifications/x' }], { ...bothAccept, 'Mcp-Session-Id': sessionId });
    expect(notesOnly.status).toBe(400);
    expect(h.received.length).toBe(before);
  });

  it('passes unknown fields at the top level and inside params through unchanged', async () => {
    const h = (harness = await startHarness());
    const initExtra = { x_top: { nested: [1, 'two', null] } };
    const sessionId = await rawSession(h, initExtra);
    expect(h.received[0]).toEqual(initializeMessage(1, initExtra));

    const call = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'echo', arguments: { v: 1 }, weird: { deep: true }, _meta: { vendor: 'x', progressToken: 'p' } },
      extension: 'kept',
    };
    const res = await post(h.url(), call, { ...bothAccept, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2099-01-01' });
    expect(res.status).toBe(200);
    await res.text();
    expect(h.received.find((m) => isRequest(m) && m.id === 4)).toEqual(call);
  });

  it('rejects invalid JSON with -32700 and bad envelopes with a reason', async () => {
    const h = (harness = await startHarness());
    const parse = await post(h.url(), '{"jsonrpc": "2.0", ', bothAccept);
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });

    const sessionId = await rawSession(h);
    const headers = { ...bothAccept, 'Mcp-Session-Id': sessionId };
    const bad = await post(h.url(), { jsonrpc: '1.0', id: 2, method: 'ping' }, headers);
    expect(bad.status).toBe(400);
    const body = await bad.json();
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('jsonrpc must be "2.0"');
    expect(h.received.filter((m) => isRequest(m) && m.method === 'ping')).toHaveLength(0);

    const empty = await post(h.url(), [], headers);
    expect(empty.status).toBe(400);

    const noSession = await post(h.url(), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bothAccept);
    expect(noSession.status).toBe(400);
    expect((await noSession.json()).error.message).toContain('Mcp-Session-Id');
  });

  it('refuses initialize for an unknown server with 404 and the request id', async () => {
    const h = (harness = await startHarness());
    const res = await post(h.url('nope'), initializeMessage('init-1'), bothAccept);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'init-1', error: { code: -32000, message: "Unknown MCP server 'nope'" } });
    expect(h.endpoint.sessionCount).toBe(0);
  });

  it('answers other methods with 405 and an Allow header', async () => {
    const h = (harness = await startHarness());
    const res = await fetch(h.url(), { method: 'PUT', headers: auth, body: '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('DELETE closes the session; later requests get 404', async () => {
    const h = (harness = await startHarness());
    const sessionId = await rawSession(h);
    const del = await fetch(h.url(), { method: 'DELETE', headers: { ...auth, 'Mcp-Session-Id': sessionId } });
    expect(del.status).toBe(200);
    expect(h.closed).toEqual([sessionId]);
    expect(h.endpoint.sessionCount).toBe(0);
    const after = await post(h.url(), { jsonrpc: '2.0', id: 2, method: 'ping' }, { ...bothAccept, 'Mcp-Session-Id': sessionId });
    expect(after.status).toBe(404);
    const again = await fetch(h.url(), { method: 'DELETE', headers: { ...auth, 'Mcp-Session-Id': sessionId } });
    expect(again.status).toBe(404);
  });

  it('queues server messages until a GET stream opens, allows one GET stream, and keeps it alive', async () => {
    const h = (harness = await startHarness());
    const sessionId = await rawSession(h);
    const session = h.sessions[0]!;
    await session.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'queued' } });
    await session.send({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });

    const get = await fetch(h.url(), { headers: { ...auth, Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId } });
    expect(get.status).toBe(200);
    const second = await fetch(h.url(), { headers: { ...auth, Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId } });
    expect(second.status).toBe(409);
    const noAccept = await fetch(h.url(), { headers: { ...auth, Accept: 'application/json', 'Mcp-Session-Id': sessionId } });
    expect(noAccept.status).toBe(406);

    const stream = sseReader(get);
    const queued = await stream.waitFor(2);
    expect(queued.map((m) => m.method)).toEqual(['notifications/message', 'roots/list']);
    expect(queued[1]).toEqual({ jsonrpc: '2.0', id: 'srv-1', method: 'roots/list' });
    // Once open, the GET stream carries unrelated messages directly.
    await session.send({ jsonrpc: '2.0', method: 'notifications/later' });
    expect((await stream.waitFor(3))[2].method).toBe('notifications/later');
    await stream.cancel();
  });

  it('sends keep-alive comments on the GET stream', async () => {
    const h = (harness = await startHarness({ keepAliveMs: 30 }));
    const sessionId = await rawSession(h);
    const get = await fetch(h.url(), { headers: { ...auth, Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId } });
    setTimeout(() => void h.sessions[0]!.send({ jsonrpc: '2.0', method: 'notifications/later' }), 200);
    const stream = sseReader(get);
    const [message] = await stream.waitFor(1);
    expect(message.method).toBe('notifications/later');
    expect(stream.comments.length).toBeGreaterThan(0);
    expect(stream.comments[0]).toBe(': keep-alive');
    await stream.cancel();
  });

  it('survives a client dropping its POST stream, and the broker closing the session ends its streams', async () => {
    const h = (harness = await startHarness());
    const sessionId = await rawSession(h);
    const headers = { ...bothAccept, 'Mcp-Session-Id': sessionId };
    const abort = new AbortController();
    const dropped = await post(h.url(), { jsonrpc: '2.0', id: 'h1', method: 'tools/call', params: { name: 'hold' } }, headers, abort.signal);
    expect(dropped.status).toBe(200);
    await until(() => h.held.has('h1'));
    abort.abort();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The undeliverable response is dropped; the session keeps working.
    await h.sessions[0]!.send({ jsonrpc: '2.0', id: 'h1', result: { late: true } });
    const ping = await post(h.url(), { jsonrpc: '2.0', id: 'p1', method: 'ping' }, headers);
    expect(await ping.text()).toContain('"id":"p1"');

    // A held request is answered with an error when the broker closes the session.
    const pending = await post(h.url(), { jsonrpc: '2.0', id: 'h2', method: 'tools/call', params: { name: 'hold' } }, headers);
    const get = await fetch(h.url(), { headers: { ...auth, Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId } });
    await until(() => h.held.has('h2'));
    await h.sessions[0]!.close();
    const text = await pending.text();
    expect(JSON.parse(text.split('data: ')[1]!)).toMatchObject({ id: 'h2', error: { code: -32000 } });
    expect(await get.text()).toBe('');
    expect(h.closed).toEqual([sessionId]);
    const after = await post(h.url(), { jsonrpc: '2.0', id: 'p2', method: 'ping' }, headers);
    expect(after.status).toBe(404);
    await expect(h.sessions[0]!.send({ jsonrpc: '2.0', method: 'x' })).rejects.toThrow(/closed/);
  });

  it('sends the headers of a slow SSE answer after a short wait, and a quick one together with its answer', async () => {
    const h = (harness = await startHarness());
    const sessionId = await rawSession(h);
    const headers = { ...bothAccept, 'Mcp-Session-Id': sessionId };
    // Held: the client still learns that its stream is open (status, session id) before any answer.
    const started = Date.now();
    const held = await post(h.url(), { jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'hold' } }, headers);
    expect(held.status).toBe(200);
    expect(held.headers.get('content-type')).toBe('text/event-stream');
    expect(held.headers.get('mcp-session-id')).toBe(sessionId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(HEADERS_WAIT_MS - 20);
    await until(() => h.held.has('slow'));
    await h.sessions[0]!.send({ jsonrpc: '2.0', id: 'slow', result: { done: true } });
    expect(JSON.parse((await held.text()).split('data: ')[1]!)).toMatchObject({ id: 'slow', result: { done: true } });
    // Answered at once: status, event and end of stream arrive together, well before the wait.
    const quick = await post(h.url(), { jsonrpc: '2.0', id: 'q', method: 'ping' }, headers);
    expect(quick.headers.get('mcp-session-id')).toBe(sessionId);
    expect(await quick.text()).toBe('event: message\ndata: {"jsonrpc":"2.0","id":"q","result":{}}\n\n');
  });

  it('routes related and progress messages to their POST stream and refuses a duplicate in-flight id', async () => {
    const h = (harness = await startHarness());
    const sessionId = await rawSession(h);
    const headers = { ...bothAccept, 'Mcp-Session-Id': sessionId };
    const a = await post(h.url(), { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'hold', _meta: { progressToken: 'tok-a' } } }, headers);
    const b = await post(h.url(), { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'hold' } }, headers);
    await until(() => h.held.has('a') && h.held.has('b'));
    const session = h.sessions[0]!;

    const dup = await post(h.url(), { jsonrpc: '2.0', id: 'a', method: 'ping' }, { ...jsonAccept, 'Mcp-Session-Id': sessionId });
    expect(await dup.json()).toMatchObject({ id: 'a', error: { code: -32600 } });

    await session.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'for a' } }, { relatedRequestId: 'a' });
    // Progress finds its request by token even though b is the more recent stream.
    await session.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-a', progress: 3 } });
    // Unrelated, no GET stream: goes to the most recently opened POST stream (b).
    await session.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'latest' } });
    await session.send({ jsonrpc: '2.0', id: 'a', result: { done: 'a' } });
    await session.send({ jsonrpc: '2.0', id: 'b', result: { done: 'b' } });

    const aEvents = (await a.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.split('data: ')[1]!));
    const bEvents = (await b.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => JSON.parse(e.split('data: ')[1]!));
    expect(aEvents).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-a', progress: 1, total: 2 } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-a', progress: 2, total: 2 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'for a' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok-a', progress: 3 } },
      { jsonrpc: '2.0', id: 'a', result: { done: 'a' } },
    ]);
    expect(bEvents).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'latest' } },
      { jsonrpc: '2.0', id: 'b', result: { done: 'b' } },
    ]);
  });
});
