// The per-call cost of the audit export: two brokers side by side in one run, the same server and
// calls, one exporting every entry over OTLP/HTTP (protobuf) to a collector in this process, the other
// not exporting. Calls go through each broker's HTTP endpoint (the broker logs them itself), interleaved
// in blocks so drift spreads over both; the report gives the latency and broker CPU per call of each,
// and their ratio, which should be within noise of 1.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ownSignalFetch } from '../electron/broker/upstream/own-signal-fetch.js';
import { EVERYTHING_SERVER, NODE, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { CpuMeter } from './cpu-time.js';
import { machine } from './machine.js';
import { summarize, table } from './stats.js';

const CALLS = Math.max(100, Number(process.env.BENCH_EXPORT_CALLS) || 1000);
const WARMUP = 200;
const BLOCK = 50;
const SERVER = 'everything';

interface Side {
  name: 'export off' | 'export on';
  broker: BenchBroker;
  client: Client;
  samples: number[];
  cpu: CpuMeter;
}

/** A collector that takes every batch (counting its bytes) and answers 200 at once. */
async function collector(): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/logs`, requests: () => requests };
}

async function echo(client: Client, message: string): Promise<void> {
  const r = (await client.callTool({ name: 'echo', arguments: { message } })) as { content?: Array<{ text?: string }> };
  if (r.content?.[0]?.text !== `Echo: ${message}`) throw new Error(`unexpected echo result ${JSON.stringify(r).slice(0, 200)}`);
}

export const auditExportBench: BenchCase = {
  name: 'export',
  async run(out) {
    const sides: Side[] = [];
    const sink = await collector();
    try {
      for (const name of ['export off', 'export on'] as const) {
        const settings = name === 'export on' ? { auditExport: { otlp: { endpoint: sink.url, protocol: 'http/protobuf' as const } } } : undefined;
        const broker = await startBroker([{ name: SERVER, command: [NODE, EVERYTHING_SERVER], trusted: true }], settings);
        const client = new Client({ name: `countersign-bench-export-${name}`, version: '1.0.0' });
        sides.push({ name, broker, client, samples: [], cpu: new CpuMeter() });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/${SERVER}`), {
            requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } },
            fetch: ownSignalFetch(),
          }),
        );
        for (let i = 0; i < WARMUP; i++) await echo(client, `warm ${i}`);
      }
      for (let from = 0; from < CALLS; from += BLOCK) {
        const order = (from / BLOCK) % 2 ? [...sides].reverse() : sides;
        for (const side of order) {
          await side.cpu.measure([side.broker.pid], async () => {
            for (let i = from; i < Math.min(CALLS, from + BLOCK); i++) {
              const start = performance.now();
              await echo(side.client, `call ${i}`);
              side.samples.push(performance.now() - start);
            }
          });
        }
      }
      const stats = sides.map((s) => ({ side: s, sum: summarize(s.samples), cpu: s.cpu.perCall(s.samples.length) }));
      const [off, on] = stats as [(typeof stats)[0], (typeof stats)[0]];
      out(
        `Audit export cost: ${CALLS} sequential echo calls per broker over its HTTP endpoint, interleaved in blocks of ${BLOCK} (${WARMUP} warm-up calls each not counted);`,
      );
      out('one broker exports every entry over OTLP/HTTP (protobuf) to a collector in this process, the other exports nothing.');
      out(machine());
      out('');
      const rows = stats.map((s) => [s.side.name, s.sum.median.toFixed(3), s.sum.p99.toFixed(3), s.cpu === undefined ? 'n/a' : s.cpu.toFixed(0)]);
      for (const line of table(['broker', 'median ms', 'p99 ms', 'broker CPU µs/call (export included)'], rows)) out(line);
      out('');
      out(
        `export on ÷ off: median ${(on.sum.median / off.sum.median).toFixed(2)}×, p99 ${(on.sum.p99 / off.sum.p99).toFixed(2)}×` +
          (on.cpu && off.cpu ? `, broker CPU ${(on.cpu / off.cpu).toFixed(2)}×` : ''),
      );
      out(`collector requests: ${sink.requests()} (batches of the exported entries)`);
    } finally {
      for (const s of sides) {
        await s.client.close().catch(() => undefined);
        await s.broker.stop();
      }
      await new Promise((r) => sink.server.close(r));
    }
  },
};
