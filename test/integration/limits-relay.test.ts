// Limits on both real paths a client takes: `connect` (relay mode: the broker starts the server with
// connect's socket as its stdio) and HTTP. The decision reads the limits of that very process.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configure, connectClient, makeDataDir, removeDir, startServe, type Via } from '../helpers/broker-harness.js';
import { FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.skipIf(process.platform !== 'linux')('limits through connect and HTTP', () => {
  let host: Server;
  let url = '';
  let hits = 0;

  beforeAll(async () => {
    host = createServer((_req, res) => {
      hits += 1;
      res.end('hello');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(host.address() as { port: number }).port}/`;
  });

  afterAll(async () => {
    await new Promise((r) => host?.close(r));
  });

  it.each(['connect', 'http'] as Via[])(
    'no network, enforced (via %s): the exfiltration guard does not ask, the fetch fails in the server, the log names the limits',
    async (via) => {
      const dataDir = makeDataDir();
      configure(dataDir, { offline: { command: NODE, args: [FIXTURE, 'tree'], limits: { network: 'none', filesystem: 'host', passEnv: [] } } }, ['offline']);
      const broker = await startServe(dataDir);
      try {
        const client = await connectClient(broker, 'offline', via);
        await client.callTool({ name: 'escape', arguments: {} });
        const before = hits;
        const result = (await client.callTool({ name: 'fetch_url', arguments: { url } })) as ToolResult;
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/^fetch failed: (ECONNREFUSED|ENETUNREACH)/);
        expect(hits).toBe(before);
        const [entry] = await broker.logWhen({ server: 'offline', tool: 'fetch_url' }, (e) => e.length > 0);
        expect(entry).toMatchObject({ decision: 'allow', decidedBy: 'policy', limits: 'no network (enforced)' });
        expect(entry!.reasons).toContain('open-world-without-network');
        expect(entry!.reasons).not.toContain('exfiltration-risk');
        await client.close();
      } finally {
        await broker.stop();
        removeDir(dataDir);
      }
    },
  );
});
