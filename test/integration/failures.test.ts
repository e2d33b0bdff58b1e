// Bad input gets a clear error and the broker stays up; crashes fail in-flight calls and restart next time.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerStatus, ServerView } from '../../shared/api.js';
import { cspProblems } from '../../shared/csp.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { CLI, EVERYTHING_SERVER, FIXTURE, NODE } from '../helpers/paths.js';
import { join } from 'node:path';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

/** Runs `countersign connect` with raw lines on stdin; resolves with parsed stdout lines and the exit code. */
function rawConnect(dataDir: string, server: string, lines: string[], wantResponses: number): Promise<{ out: unknown[]; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, 'connect', server, '--data-dir', dataDir], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: unknown[] = [];
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`timed out; got ${JSON.stringify(out)}`));
    }, 20_000);
    createInterface({ input: child.stdout! }).on('line', (l) => {
      out.push(JSON.parse(l));
      if (out.length >= wantResponses) child.stdin!.end();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ out, code });
    });
    for (const l of lines) child.stdin!.write(l + '\n');
    if (wantResponses === 0) child.stdin!.end();
  });
}

const init = (id: number | string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

describe('failures and bad input', () => {
  let broker: TestBroker;

  beforeAll(async () => {
    const dataDir = makeDataDir();
    configure(
      dataDir,
      {
        crash: { command: NODE, args: [FIXTURE, 'crash'] },
        everything: { command: NODE, args: [EVERYTHING_SERVER] },
        dupe: { command: NODE, args: [join(FIXTURE, '..', 'raw-dupe-server.mjs')] },
        missing: { command: '/nonexistent/countersign-test-binary' },
      },
      ['crash', 'everything', 'dupe'],
    );
    broker = await startServe(dataDir);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
  });

  it('fails the in-flight call of a server that crashes, then starts it again for the next session', async () => {
    const client = await connectClient(broker, 'crash', 'connect');
    try {
      const err = await client.callTool({ name: 'crash', arguments: {} }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(/stopped \(exit code 3\).*in flight/);
      expect(err?.message).toContain('about to crash on purpose');
    } finally {
      await client.close().catch(() => undefined);
    }
    const servers = await broker.api<ServerView[]>('listServers');
    expect(servers.find((s) => s.name === 'crash')?.lastError).toMatch(/exited with code 3/);
    const again = await connectClient(broker, 'crash', 'http');
    try {
      const ok = (await again.callTool({ name: 'ok', arguments: {} })) as ToolResult;
      expect(ok.content[0]?.text).toBe('ok');
    } finally {
      await again.close();
    }
  });

  it('answers malformed lines with clear errors and keeps the session usable', async () => {
    const { out } = await rawConnect(
      broker.dataDir,
      'everything',
      ['{"jsonrpc":"2.0","id":7,"method":', '[1,2,3]', '{"jsonrpc":"1.0","id":8,"method":"ping"}', init(1), '{"jsonrpc":"2.0","id":2,"method":"ping"}'],
      5,
    );
    expect(out[0]).toMatchObject({ id: 7, error: { code: -32700, message: expect.stringMatching(/invalid JSON/) } });
    // A batch gets an error too (batching left MCP in 2025-06-18), with id null: no single id to answer.
    expect(out[1]).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/batches are not supported/) } });
    expect(out[2]).toMatchObject({ id: 8, error: { code: -32600, message: expect.stringMatching(/jsonrpc must be "2.0"/) } });
    expect(out[3]).toMatchObject({ id: 1, result: { serverInfo: expect.anything() } });
    expect(out[4]).toMatchObject({ id: 2, result: {} });
  });

  it('refuses a message of tens of MB with an error naming the limit, and keeps serving', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 99,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'x'.repeat(40 * 1024 * 1024) } },
    });
    const { out } = await rawConnect(broker.dataDir, 'everything', [init(1), huge, '{"jsonrpc":"2.0","id":3,"method":"ping"}'], 3);
    expect(out).toContainEqual(
      expect.objectContaining({ id: 99, error: expect.objectContaining({ message: expect.stringMatching(/larger than the \d+ byte limit/) }) }),
    );
    expect(out).toContainEqual(expect.objectContaining({ id: 3, result: {} }));
    // The HTTP way in refuses it too, with 413.
    const res = await fetch(`${broker.baseUrl}/mcp/everything`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${broker.mcpToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: huge,
    }).catch((e: Error) => e);
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    expect((await broker.api<BrokerStatus>('getStatus')).version).toBeTruthy();
  });

  it('passes exactly one response per request from a server that duplicates and invents responses', async () => {
    const { out } = await rawConnect(
      broker.dataDir,
      'dupe',
      [
        init(1),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"ping_tool","arguments":{}}}',
        '{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"ping_tool","arguments":{}}}',
        '{"jsonrpc":"2.0","id":"cs-1","result":{"stray":true}}',
      ],
      3,
    );
    await new Promise((r) => setTimeout(r, 200));
    const ids = out.map((m) => (m as { id: unknown }).id);
    expect(ids.filter((i) => i === 1)).toHaveLength(1);
    expect(out).toContainEqual(expect.objectContaining({ id: 'a', result: { content: [{ type: 'text', text: expect.stringMatching(/^answer to \d+$/) }] } }));
    expect(out).toContainEqual(expect.objectContaining({ id: 'b' }));
    expect(out.some((m) => JSON.stringify(m).includes('duplicate') || JSON.stringify(m).includes('foreign'))).toBe(false);
    // Unknown fields of newer protocol revisions pass untouched.
    expect(out[0]).toMatchObject({ id: 1, result: { futureField: { kept: true } } });
  });

  it('tells a client when a server cannot be started', async () => {
    const { out, code } = await rawConnect(broker.dataDir, 'missing', [init(5)], 1);
    expect(out[0]).toMatchObject({ id: 5, error: { message: expect.stringMatching(/could not be started \(spawn .*ENOENT\)/) } });
  });

  it('gives an unknown server name a JSON-RPC error and a non-zero exit, both ways in', async () => {
    const { out, code } = await rawConnect(broker.dataDir, 'nope', [init(1)], 1);
    expect(out[0]).toMatchObject({ id: 1, error: { message: expect.stringMatching(/no server named 'nope'/) } });
    expect(code).not.toBe(0);
    const res = await fetch(`${broker.baseUrl}/mcp/nope`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${broker.mcpToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: init(1),
    });
    expect(res.status).toBe(404);
    expect(JSON.stringify(await res.json())).toMatch(/no server named 'nope'/);
  });

  it('rejects a wrong or missing token (401) and a foreign Origin or Host (403)', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${broker.baseUrl}/mcp/everything`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: init(1),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post({ Authorization: `Bearer ${broker.apiToken}` })).status).toBe(401); // the UI token is not an MCP token
    expect((await post({ Authorization: `Bearer ${broker.mcpToken}`, Origin: 'https://evil.example' })).status).toBe(403);
    const api = await fetch(`${broker.baseUrl}/api/rpc`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${broker.mcpToken}`, 'Content-Type': 'application/json' },
      body: '{"method":"listPending","args":[]}',
    });
    expect(api.status).toBe(401); // the MCP token is not a UI token
    // fetch() will not forge Host; a raw request can.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(broker.baseUrl);
      const req = request(
        { host: u.hostname, port: u.port, path: '/api/rpc', method: 'POST', headers: { Host: 'evil.example', Authorization: `Bearer ${broker.apiToken}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"method":"listPending","args":[]}');
    });
    expect(status).toBe(403);
    expect(broker.child.exitCode).toBeNull();
  });

  it('serves the UI with a strict CSP and no framing', async () => {
    const res = await fetch(`${broker.baseUrl}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(cspProblems(csp)).toEqual([]);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${broker.baseUrl}/..%2f..%2fpackage.json`)).status).toBe(404);
  });

  it('validates API arguments and refuses decisions on calls that are not pending', async () => {
    await expect(broker.api('decide', 'no-such-call', { kind: 'allow-once' })).resolves.toEqual({ ok: false, error: 'not-pending' });
    await expect(broker.api('decide', 'x', { kind: 'allow-forever' })).rejects.toThrow(/invalid arguments for decide/);
    await expect(broker.api('setTrust', '../etc', true)).rejects.toThrow(/invalid arguments/);
    await expect(broker.api('dropEverything')).rejects.toThrow(/unknown API method/);
  });
});

describe('start-up problems', () => {
  it('starts safe from a corrupt settings file, moves it aside and says so', async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { everything: { command: NODE, args: [EVERYTHING_SERVER] } }, ['everything']);
    writeFileSync(join(dataDir, 'settings.json'), '{"servers": {"everything": {"command": ');
    const broker = await startServe(dataDir);
    try {
      const status = await broker.api<BrokerStatus>('getStatus');
      expect(status.warnings.join('\n')).toMatch(/moved to .*corrupt/);
      expect(broker.stderr()).toMatch(/could not be read/);
      expect(await broker.api<ServerView[]>('listServers')).toEqual([]);
      const { readdirSync, readFileSync } = await import('node:fs');
      const moved = readdirSync(dataDir).find((f) => f.includes('corrupt'));
      expect(readFileSync(join(dataDir, moved!), 'utf8')).toBe('{"servers": {"everything": {"command": ');
    } finally {
      await broker.stop();
      removeDir(dataDir);
    }
  });

  it('refuses a second broker on the same data dir with a clear message', async () => {
    const dataDir = makeDataDir();
    const first = await startServe(dataDir);
    try {
      const second = spawn(NODE, [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--no-open'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      second.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      const code = await new Promise<number | null>((r) => second.on('exit', r));
      expect(code).toBe(2);
      expect(err).toMatch(/already running/);
    } finally {
      await first.stop();
      removeDir(dataDir);
    }
  });

  it('gives a client a JSON-RPC error saying how to start Countersign when no broker runs', async () => {
    const dataDir = makeDataDir();
    try {
      const { out, code } = await rawConnect(dataDir, 'anything', [init(42)], 1);
      // The way to start it is an absolute command, never a registry name.
      expect(out[0]).toMatchObject({
        id: 42,
        error: {
          message: expect.stringContaining(
            `not running for ${dataDir}. Open the Countersign app, or start it with \`${NODE} ${CLI} serve --data-dir ${dataDir}\``,
          ),
        },
      });
      expect(JSON.stringify(out[0])).not.toContain('npx');
      expect(code).toBe(1);
    } finally {
      removeDir(dataDir);
    }
  });
});
