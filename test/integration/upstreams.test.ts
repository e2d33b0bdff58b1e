// Remote upstreams get only their configured headers; stdio process trees end with the broker.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configure, connectClient, makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { FIXTURE, NODE, ROOT } from '../helpers/paths.js';
import { alive, allGone, hostTree } from '../helpers/processes.js';

type ToolResult = { content: Array<{ type: string; text?: string }> };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe('remote upstream over Streamable HTTP', () => {
  let upstream: ReturnType<typeof spawn>;
  let port = 0;

  beforeAll(async () => {
    upstream = spawn(NODE, [`${ROOT}test/fixtures/http-fixture-server.mjs`], { stdio: ['pipe', 'pipe', 'inherit'] });
    port = await new Promise<number>((resolve) => {
      createInterface({ input: upstream.stdout! }).on('line', (l) => {
        const m = /^listening (\d+)$/.exec(l);
        if (m) resolve(Number(m[1]));
      });
    });
  });

  afterAll(() => {
    upstream?.kill();
  });

  it.each(['connect', 'http'] as const)("sends the configured headers, never the client's Authorization (via %s)", async (via) => {
    const dataDir = makeDataDir();
    configure(dataDir, { remote: { url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Team': 'blue' } } }, ['remote']);
    const broker = await startServe(dataDir);
    try {
      const client = await connectClient(broker, 'remote', via);
      try {
        const seen = JSON.parse(textOf(await client.callTool({ name: 'seen_headers', arguments: {} }))) as Record<string, unknown>;
        expect(seen['x-team']).toBe('blue');
        expect(seen.authorization).toBeNull();
        expect(JSON.stringify(seen)).not.toContain(broker.mcpToken);
      } finally {
        await client.close();
      }
    } finally {
      await broker.stop();
      removeDir(dataDir);
    }
  });
});

describe('child processes', () => {
  it("ends a stdio server's whole process tree when the broker quits", async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { tree: { command: NODE, args: [FIXTURE, 'crash'] } }, ['tree']);
    const broker = await startServe(dataDir);
    let pids: { server: number; grandchild: number } | undefined;
    try {
      const client = await connectClient(broker, 'tree', 'http');
      pids = hostTree(JSON.parse(textOf(await client.callTool({ name: 'pids', arguments: {} }))) as { tag: string });
      expect(alive(pids.server)).toBe(true);
      expect(alive(pids.grandchild)).toBe(true);
      // The client stays connected: quitting the broker must end the tree on its own.
    } finally {
      await broker.stop();
      removeDir(dataDir);
    }
    expect(await allGone([pids.server, pids.grandchild])).toBe(true);
  });
});
