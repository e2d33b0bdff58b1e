// Latency of one `echo` tools/call to a real server-everything: direct over stdio, through
// `countersign connect`, and through the broker's HTTP endpoint. All three in one run, interleaved in
// blocks so drift (CPU frequency, GC, other load) spreads over every path instead of favouring one.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CLI, EVERYTHING_SERVER, NODE, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { ownSignalFetch } from '../electron/broker/own-signal-fetch.js';
import { CpuMeter } from './cpu-time.js';
import { summarize, table } from './stats.js';

const CALLS = 1000;
const WARMUP = 500;
const BLOCK = 100;
const TARGET_CONNECT_MEDIAN = 1.5;
const SERVER = 'everything';
const BYTE_PIPE = fileURLToPath(new URL('./byte-pipe.mjs', import.meta.url));

interface Path {
  name: 'direct' | 'byte pipe' | 'connect' | 'http';
  client: Client;
  samples: number[];
  /** CPU used by the processes between client and server: the relay process, the broker. */
  relayCpu: CpuMeter;
  brokerCpu: CpuMeter;
  relayPid?: number;
  brokerPid?: number;
}

type EchoResult = { isError?: boolean; content?: Array<{ type?: string; text?: string }> };

async function echo(path: Path, n: number): Promise<number> {
  const message = `bench ${n}`;
  const start = performance.now();
  const result = (await path.client.callTool({ name: 'echo', arguments: { message } })) as EchoResult;
  const elapsed = performance.now() - start;
  // A denied or failed call would measure the wrong thing: that is a broken run, not a slow one.
  if (result.isError || result.content?.[0]?.text !== `Echo: ${message}`) {
    throw new Error(`${path.name}: unexpected echo result ${JSON.stringify(result).slice(0, 500)}`);
  }
  return elapsed;
}

async function ping(path: Path): Promise<number> {
  const start = performance.now();
  await path.client.ping();
  return performance.now() - start;
}

async function open(name: Path['name'], transport: Transport, paths: Path[], brokerPid?: number): Promise<void> {
  const client = new Client({ name: `countersign-bench-${name}`, version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    await transport.close().catch(() => undefined);
    throw new Error(`${name}: could not connect: ${(err as Error).message}`);
  }
  const relayPid = name === 'byte pipe' || name === 'connect' ? (transport as StdioClientTransport).pid ?? undefined : undefined;
  paths.push({ name, client, samples: [], relayCpu: new CpuMeter(), brokerCpu: new CpuMeter(), relayPid, brokerPid });
}

function report(paths: Path[], out: (line: string) => void): void {
  const stats = paths.map((p) => ({ name: p.name, ...summarize(p.samples) }));
  const direct = stats.find((s) => s.name === 'direct')!;
  const ms = (v: number): string => v.toFixed(3);
  const x = (v: number): string => `${v.toFixed(2)}×`;
  out(`MCP relay latency: ${CALLS} sequential echo calls per path to server-everything (${WARMUP} warm-up calls not counted)`);
  out('');
  const rows = stats.map((s) => [s.name, ms(s.median), ms(s.p99), x(s.median / direct.median), x(s.p99 / direct.p99)]);
  for (const line of table(['path', 'median ms', 'p99 ms', 'median vs direct', 'p99 vs direct'], rows)) out(line);
  out('');
  const connect = stats.find((s) => s.name === 'connect')!;
  const ratio = connect.median / direct.median;
  const verdict = ratio <= TARGET_CONNECT_MEDIAN ? 'PASS' : 'FAIL';
  out(`target: through connect at most ${TARGET_CONNECT_MEDIAN}× direct (median): ${x(ratio)} ${verdict}`);
  const pipe = stats.find((s) => s.name === 'byte pipe')!;
  out(`floor: a bare byte pipe through one extra process (what any relay costs here) is ${x(pipe.median / direct.median)}; ` +
    `connect adds ${x(connect.median / pipe.median)} on top of it`);
}

export const mcpLatency: BenchCase = {
  name: 'mcp',
  async run(out) {
    const paths: Path[] = [];
    let broker: BenchBroker | undefined;
    try {
      broker = await startBroker([{ name: SERVER, command: [NODE, EVERYTHING_SERVER], trusted: true }]);
      const b = broker;
      await open('direct', new StdioClientTransport({ command: NODE, args: [EVERYTHING_SERVER], stderr: 'ignore' }), paths);
      await open('byte pipe', new StdioClientTransport({ command: NODE, args: [BYTE_PIPE, NODE, EVERYTHING_SERVER], stderr: 'ignore' }), paths);
      await open('connect', new StdioClientTransport({ command: NODE, args: [CLI, 'connect', SERVER, '--data-dir', b.dataDir], stderr: 'ignore' }), paths, b.pid);
      await open('http', new StreamableHTTPClientTransport(new URL(`${b.baseUrl}/mcp/${SERVER}`), {
        requestInit: { headers: { Authorization: `Bearer ${b.mcpToken}` } },
        // The SDK's own fetch piles a listener per request on one signal (and warns past 1,500).
        fetch: ownSignalFetch(),
      }), paths, b.pid);

      for (const p of paths) for (let i = 0; i < WARMUP; i++) await echo(p, i);
      // A ping is relayed without a decision: it shows what the extra hops alone cost.
      const pings = new Map(paths.map((p) => [p.name, [] as number[]]));
      for (let done = 0; done < CALLS; done += BLOCK) {
        for (const p of paths) {
          const block = async (): Promise<void> => {
            for (let i = done; i < Math.min(CALLS, done + BLOCK); i++) p.samples.push(await echo(p, i));
          };
          await p.relayCpu.measure([p.relayPid], () => p.brokerCpu.measure([p.brokerPid], block));
          for (let i = 0; i < BLOCK / 4; i++) pings.get(p.name)!.push(await ping(p));
        }
      }
      report(paths, out);
      const cpu = (m: CpuMeter, p: Path): string => {
        const v = m.perCall(p.samples.length);
        return v === undefined ? 'n/a' : `${v.toFixed(0)} µs`;
      };
      out('');
      out('CPU per echo call (Linux /proc schedstat): ' + paths.filter((p) => p.name !== 'direct').map((p) =>
        p.name === 'byte pipe' ? `byte pipe process ${cpu(p.relayCpu, p)}`
          : p.name === 'connect' ? `connect process ${cpu(p.relayCpu, p)} + broker ${cpu(p.brokerCpu, p)}`
            : `http: broker ${cpu(p.brokerCpu, p)}`).join('; '));
      const direct = summarize(pings.get('direct')!).median;
      out('');
      out(`relay alone (${CALLS / 4} pings each, no decision): ` +
        paths.map((p) => `${p.name} ${summarize(pings.get(p.name)!).median.toFixed(3)} ms (${(summarize(pings.get(p.name)!).median / direct).toFixed(2)}×)`).join(', '));
    } catch (err) {
      const tail = broker?.stderr().trim();
      throw new Error(`${(err as Error).message}${tail ? `\nbroker stderr (tail):\n${tail}` : ''}`);
    } finally {
      await Promise.allSettled(paths.map((p) => p.client.close()));
      await broker?.stop();
    }
  },
};
