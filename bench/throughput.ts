// Throughput with concurrent clients: 8 clients, each with its own stdio session (its own process, as MCP
// clients start them), all calling `echo` at once; direct, through the byte pipe, and through `connect`.
// Rounds alternate between the paths so drift spreads over all three.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CLI, EVERYTHING_SERVER, FLOOR_FLAGS, NODE, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { machine } from './machine.js';
import { median, table } from './stats.js';

const CLIENTS = 8;
const CALLS_PER_CLIENT = 200;
const ROUNDS = 5;
const WARMUP = 100;
const TARGET_CONNECT_VS_PIPE = 0.85;
const SERVER = 'everything';
const BYTE_PIPE = fileURLToPath(new URL('./byte-pipe.mjs', import.meta.url));

interface Path {
  name: 'direct' | 'byte pipe' | 'connect';
  clients: Client[];
  /** Calls per second, one value per round. */
  rates: number[];
}

async function echoLoop(client: Client, calls: number, tag: string): Promise<void> {
  for (let i = 0; i < calls; i++) {
    const message = `${tag} ${i}`;
    const r = (await client.callTool({ name: 'echo', arguments: { message } })) as { isError?: boolean; content?: Array<{ text?: string }> };
    if (r.isError || r.content?.[0]?.text !== `Echo: ${message}`) throw new Error(`unexpected echo result ${JSON.stringify(r).slice(0, 300)}`);
  }
}

export const throughput: BenchCase = {
  name: 'throughput',
  async run(out) {
    let broker: BenchBroker | undefined;
    const paths: Path[] = [];
    try {
      broker = await startBroker([{ name: SERVER, command: [NODE, EVERYTHING_SERVER], trusted: true }]);
      const argsOf: Record<Path['name'], string[]> = {
        direct: [EVERYTHING_SERVER],
        'byte pipe': [...FLOOR_FLAGS, BYTE_PIPE, NODE, EVERYTHING_SERVER],
        connect: [CLI, 'connect', SERVER, '--data-dir', broker.dataDir],
      };
      for (const name of ['direct', 'byte pipe', 'connect'] as const) {
        const clients: Client[] = [];
        paths.push({ name, clients, rates: [] });
        for (let c = 0; c < CLIENTS; c++) {
          const client = new Client({ name: `countersign-bench-tp-${c}`, version: '1.0.0' });
          await client.connect(new StdioClientTransport({ command: NODE, args: argsOf[name], stderr: 'ignore' }));
          clients.push(client);
        }
        await Promise.all(clients.map((cl, c) => echoLoop(cl, WARMUP, `warm ${c}`)));
      }
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? [...paths].reverse() : paths;
        for (const p of order) {
          const start = performance.now();
          await Promise.all(p.clients.map((cl, c) => echoLoop(cl, CALLS_PER_CLIENT, `r${round} c${c}`)));
          p.rates.push((CLIENTS * CALLS_PER_CLIENT) / ((performance.now() - start) / 1000));
        }
      }
      const rate = (p: Path): number => median([...p.rates].sort((a, b) => a - b));
      const [direct, pipe, connect] = paths.map(rate) as [number, number, number];
      out(`Throughput: ${CLIENTS} clients at once, each in its own session, ${CALLS_PER_CLIENT} echo calls each per round (median of ${ROUNDS} rounds)`);
      out(machine());
      out('');
      const rows = paths.map((p) => [p.name, rate(p).toFixed(0), `${(rate(p) / direct).toFixed(2)}×`, p.name === 'connect' ? `${(connect / pipe).toFixed(2)}× byte pipe` : '–']);
      for (const line of table(['path', 'calls/s', '÷ direct', '÷ floor'], rows)) out(line);
      out('');
      const r = connect / pipe;
      out(`target: ${CLIENTS} clients through connect at least ${TARGET_CONNECT_VS_PIPE}× of ${CLIENTS} through the byte pipe: ${r.toFixed(2)}× ${r >= TARGET_CONNECT_VS_PIPE ? 'PASS' : 'MISS'}`);
    } catch (err) {
      const tail = broker?.stderr().trim();
      throw new Error(`${(err as Error).message}${tail ? `\nbroker stderr (tail):\n${tail}` : ''}`);
    } finally {
      await Promise.allSettled(paths.flatMap((p) => p.clients.map((c) => c.close())));
      await broker?.stop();
    }
  },
};
