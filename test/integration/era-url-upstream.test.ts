// A v2 server over Streamable HTTP as a URL upstream: a 2026-07-28 client (and a 2025-11-25 one) reach it
// through Countersign via `connect` and HTTP, and Countersign's own requests carry the revision's headers.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { NODE, ROOT } from '../helpers/paths.js';
import { connectV2, MODERN } from '../helpers/v2-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.each<Via>(['connect', 'http'])('a v2 HTTP server as a URL upstream, via %s', (via) => {
  let upstream: ChildProcess;
  let broker: TestBroker;
  let dataDir: string;
  beforeAll(async () => {
    upstream = spawn(NODE, [`${ROOT}test/fixtures/v2-http-server.mjs`], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = await new Promise<string>((resolve) =>
      upstream.stdout!.on('data', (d: Buffer) => {
        const m = /PORT (\d+)/.exec(String(d));
        if (m) resolve(m[1]!);
      }),
    );
    dataDir = makeDataDir();
    configure(dataDir, { remote: { url: `http://127.0.0.1:${port}/mcp` } }, ['remote']);
    broker = await startServe(dataDir);
  });
  afterAll(async () => {
    await broker.stop();
    upstream.kill();
    removeDir(dataDir);
  });

  it('serves a 2026-07-28 client: a read-only call, and a denial as a proper result', async () => {
    const client = await connectV2(broker, 'remote', via);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(textOf(await client.callTool({ name: 'read_note', arguments: { name: 'r' } }))).toBe('note r: hello');
      const call = client.callTool({ name: 'delete_note', arguments: { name: `remote-${via}` } });
      const pending = await broker.waitForPending((c) => c.tool === 'delete_note');
      await broker.api('decide', pending.id, { kind: 'deny', reason: 'remote says no' });
      const result = (await call) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/denied this call: remote says no/);
    } finally {
      await client.close();
    }
  });

  it('serves a 2025-11-25 client', async () => {
    const client = await connectClient(broker, 'remote', via);
    try {
      expect(textOf(await client.callTool({ name: 'read_note', arguments: { name: 'l' } }))).toBe('note l: hello');
    } finally {
      await client.close();
    }
  });
});
