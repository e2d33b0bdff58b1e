// Host / Origin / bearer checks and the capped body reader, as pure functions and over a real node:http server.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpHttpEndpoint } from '../../electron/broker/http/mcp-endpoint.js';
import {
  checkBearer,
  checkHost,
  checkOrigin,
  DEFAULT_MAX_BODY_BYTES,
  guardRequest,
  loopbackHosts,
  loopbackOrigins,
  readJsonBody,
  sendRejection,
} from '../../electron/broker/http/request-guard.js';
import { isRequest } from '../../shared/jsonrpc.js';

const TOKEN = 'secret-token-abc';

describe('checkHost', () => {
  const allowed = loopbackHosts(4100);
  it('accepts the three loopback names with the right port, case-insensitively', () => {
    for (const host of ['127.0.0.1:4100', 'localhost:4100', '[::1]:4100', 'LocalHost:4100']) {
      expect(checkHost(host, allowed)).toEqual({ ok: true });
    }
  });
  it('refuses other hosts, other ports and a missing Host with 403', () => {
    expect(checkHost('evil.com', allowed)).toEqual({ ok: false, status: 403, message: "Forbidden: Host header 'evil.com' is not allowed" });
    expect(checkHost('localhost:4101', allowed)).toMatchObject({ ok: false, status: 403 });
    expect(checkHost('localhost', allowed)).toMatchObject({ ok: false, status: 403 });
    expect(checkHost('127.0.0.1.evil.com:4100', allowed)).toMatchObject({ ok: false, status: 403 });
    expect(checkHost(undefined, allowed)).toMatchObject({ ok: false, status: 403, message: 'Forbidden: missing Host header' });
  });
});

describe('checkOrigin', () => {
  const allowed = loopbackOrigins(4100);
  it('allows a missing Origin and the exact loopback origins', () => {
    expect(checkOrigin(undefined, allowed)).toEqual({ ok: true });
    for (const origin of ['http://127.0.0.1:4100', 'http://localhost:4100', 'http://[::1]:4100']) {
      expect(checkOrigin(origin, allowed)).toEqual({ ok: true });
    }
  });
  it('refuses any other Origin with 403', () => {
    expect(checkOrigin('http://evil.com', allowed)).toEqual({ ok: false, status: 403, message: "Forbidden: Origin 'http://evil.com' is not allowed" });
    for (const origin of ['null', '', 'https://localhost:4100', 'http://localhost:4101', 'http://localhost:4100/']) {
      expect(checkOrigin(origin, allowed)).toMatchObject({ ok: false, status: 403 });
    }
  });
});

describe('checkBearer', () => {
  it('accepts the right token, with the scheme in any case', () => {
    expect(checkBearer(`Bearer ${TOKEN}`, TOKEN)).toEqual({ ok: true });
    expect(checkBearer(`bearer ${TOKEN}`, TOKEN)).toEqual({ ok: true });
  });
  it('answers a missing token with 401 and WWW-Authenticate: Bearer', () => {
    expect(checkBearer(undefined, TOKEN)).toEqual({
      ok: false,
      status: 401,
      message: 'Unauthorized: missing bearer token',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  });
  it('answers wrong tokens (any length) and other schemes with 401', () => {
    for (const header of ['Bearer nope', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, 'Bearer', `Bearer ${TOKEN} extra`]) {
      const result = checkBearer(header, TOKEN);
      expect(result).toMatchObject({ ok: false, status: 401 });
      expect(result.ok || result.headers?.['WWW-Authenticate']).toMatch(/^Bearer/);
    }
  });
  it('never authorises anything when the expected token is empty', () => {
    expect(checkBearer('Bearer x', '')).toMatchObject({ ok: false, status: 401 });
  });
});

// A real server: the guards, then the body reader (cap 1 KiB) or the MCP endpoint.
let server: Server | undefined;
let port = 0;
afterEach(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

async function listen(endpoint?: McpHttpEndpoint): Promise<void> {
  server = createServer((req, res) => {
    const guard = guardRequest(req, { allowedHosts: loopbackHosts(port), allowedOrigins: loopbackOrigins(port), token: TOKEN });
    if (!guard.ok) return sendRejection(res, guard);
    if (endpoint) return void endpoint.handle(req, res, 'demo');
    void readJsonBody(req, 1024).then((body) => {
      if (!body.ok) return sendRejection(res, body, body.status === 413 ? 'drain' : 'keep');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ echoed: body.value }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
}

/** The answer's JSON, with the fields these tests read. */
type RawBody = { ok: boolean; status: unknown; value: unknown; error: { code: number; message: string } };

/** node:http lets the test set Host, which fetch does not. */
function raw(headers: Record<string, string>, body: string | Buffer = '{}'): Promise<{ status: number; headers: IncomingHttpHeaders; body: RawBody }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as RawBody }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('guardRequest over HTTP', () => {
  const auth = () => ({ Host: `127.0.0.1:${port}`, Authorization: `Bearer ${TOKEN}` });

  it('lets a correct request through and rejects bad Host, Origin and token with JSON-RPC errors', async () => {
    await listen();
    expect(await raw(auth(), '{"a":1}')).toMatchObject({ status: 200, body: { echoed: { a: 1 } } });
    expect(await raw({ ...auth(), Host: `localhost:${port}`, Origin: `http://localhost:${port}` })).toMatchObject({ status: 200 });

    const host = await raw({ ...auth(), Host: 'evil.com' });
    expect(host.status).toBe(403);
    expect(host.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: "Forbidden: Host header 'evil.com' is not allowed" } });

    const origin = await raw({ ...auth(), Origin: 'http://evil.com' });
    expect(origin.status).toBe(403);
    expect(origin.body.error.message).toBe("Forbidden: Origin 'http://evil.com' is not allowed");

    const missing = await raw({ Host: `127.0.0.1:${port}` });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect(missing.body.error).toEqual({ code: -32000, message: 'Unauthorized: missing bearer token' });

    const wrong = await raw({ ...auth(), Authorization: 'Bearer wrong' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('stops the SDK client without the token and lets it in with it', async () => {
    const endpoint = new McpHttpEndpoint({
      onSession: (_name, transport) => {
        transport.onmessage = (message) => {
          if (isRequest(message) && message.method === 'initialize') {
            void transport.send({
              jsonrpc: '2.0',
              id: message.id,
              result: {
                protocolVersion: (message.params as { protocolVersion?: unknown }).protocolVersion,
                capabilities: {},
                serverInfo: { name: 's', version: '1' },
              },
            });
          }
        };
        return undefined;
      },
    });
    await listen(endpoint);
    const url = new URL(`http://localhost:${port}/mcp/demo`);
    const anonymous = new Client({ name: 'c', version: '1' });
    const authorised = new Client({ name: 'c', version: '1' });
    try {
      await expect(anonymous.connect(new StreamableHTTPClientTransport(url))).rejects.toMatchObject({ code: 401 });
      await authorised.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      expect(authorised.getServerVersion()).toEqual({ name: 's', version: '1' });
      expect(endpoint.sessionCount).toBe(1);
    } finally {
      await anonymous.close();
      await authorised.close();
      await endpoint.closeAll();
    }
  });
});

describe('readJsonBody', () => {
  const headers = () => ({ Host: `127.0.0.1:${port}`, Authorization: `Bearer ${TOKEN}` });

  it('defaults to a 32 MiB cap', () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(32 * 1024 * 1024);
  });

  it('parses bodies up to the cap and refuses bigger ones with 413, declared or chunked', async () => {
    await listen();
    const atCap = JSON.stringify({ s: 'x'.repeat(1024 - 8) });
    expect(atCap.length).toBe(1024);
    expect(await raw(headers(), atCap)).toMatchObject({ status: 200 });

    const over = JSON.stringify({ s: 'x'.repeat(1024 - 7) });
    const declared = await raw(headers(), over);
    expect(declared.status).toBe(413);
    // The rest of the refused body is read and dropped (not a reset), so the connection is reusable.
    expect(declared.headers.connection).toBe('keep-alive');
    expect(declared.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Payload Too Large: request body exceeds the 1024-byte limit' },
    });

    // Chunked upload with no Content-Length: refused once the running total crosses the cap.
    const chunks = [JSON.stringify({ s: '' }).slice(0, -2), '"', 'y'.repeat(800), 'y'.repeat(800), '"}'];
    let i = 0;
    const chunked = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}` },
      duplex: 'half',
      body: new ReadableStream({
        pull(controller) {
          const next = chunks[i++];
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      }),
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await chunked.json()).error.message).toContain('1024-byte limit');

    // The server is still fine afterwards.
    expect(await raw(headers(), '[1,2]')).toMatchObject({ status: 200, body: { echoed: [1, 2] } });
  });

  it('answers invalid JSON and an empty body with 400 and -32700', async () => {
    await listen();
    for (const body of ['{"a":', '', 'not json']) {
      const res = await raw(headers(), body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(-32700);
      expect(res.body.error.message).toMatch(/^Parse error: /);
    }
  });

  it('refuses a body that is not valid UTF-8 (never decoded to U+FFFD and passed on)', async () => {
    await listen();
    // {"a":"<0xff>"}: valid JSON around a byte no UTF-8 text contains.
    const res = await raw(headers(), Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
    expect(res.body.error.message).toBe('Parse error: the message is not valid UTF-8');
  });
});
