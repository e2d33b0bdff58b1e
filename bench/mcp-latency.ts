// Latency of one `echo` tools/call to a real server-everything, every path side by side in one run:
// stdio direct, a bare byte pipe (the floor for any stdio relay), `countersign connect`, the minimal SDK
// HTTP relay (the floor for any HTTP path), Countersign's HTTP endpoint, and the peers supergateway and
// mcp-proxy. Interleaved in small blocks so drift (CPU frequency, GC, other load) spreads over every path:
// the ratios hold on a busy machine even when the absolute numbers do not.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CLI, EVERYTHING_SERVER, FLOOR_FLAGS, NODE, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { ownSignalFetch } from '../electron/broker/upstream/own-signal-fetch.js';
import { CpuMeter } from './cpu-time.js';
import { gatewayMissing, startGateway, type Gateway, type GatewayKind } from './gateways.js';
import { machine } from './machine.js';
import { mb, processMemory } from './process-memory.js';
import { summarize, table } from './stats.js';

const CALLS = 1000;
const WARMUP = 300;
const BLOCK = 50;
const TARGET_CONNECT_VS_PIPE = 1.15;
const TARGET_HTTP_VS_FLOOR = 1.15;
const SERVER = 'everything';
const BYTE_PIPE = fileURLToPath(new URL('./byte-pipe.mjs', import.meta.url));
// The byte pipe with the server on a Unix socket, as `connect` has it in relay mode.
const SOCKET_PIPE = fileURLToPath(new URL('./socket-pipe.mjs', import.meta.url));

type PathName = 'direct' | 'byte pipe' | 'socket pipe' | 'connect' | 'http floor' | 'countersign http' | 'supergateway' | 'mcp-proxy';

/** Each path's floor: what the least relay of its kind costs. */
const FLOOR: Record<PathName, PathName> = {
  direct: 'direct',
  'byte pipe': 'direct',
  'socket pipe': 'direct',
  connect: 'byte pipe',
  'http floor': 'http floor',
  'countersign http': 'http floor',
  supergateway: 'http floor',
  'mcp-proxy': 'http floor',
};

interface Between {
  label: string;
  pid?: number;
  cpu: CpuMeter;
}

interface Path {
  name: PathName;
  client: Client;
  samples: number[];
  /** The processes between client and server, whose CPU the calls cost. */
  between: Between[];
  /** Spawn (or, for the broker's endpoint, connect) to the first tools/list answer: one sample. */
  firstListMs: number;
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

async function open(name: PathName, transport: Transport, between: Array<Omit<Between, 'cpu'>>, startedAt = performance.now()): Promise<Path> {
  const client = new Client({ name: `countersign-bench-${name}`, version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === 'echo')) throw new Error('tools/list has no echo');
  } catch (err) {
    await transport.close().catch(() => undefined);
    throw new Error(`${name}: could not connect: ${(err as Error).message}`);
  }
  const pid = (transport as Partial<StdioClientTransport>).pid ?? undefined;
  return {
    name,
    client,
    samples: [],
    firstListMs: performance.now() - startedAt,
    between: between.map((b) => ({ ...b, pid: b.pid ?? pid, cpu: new CpuMeter() })),
  };
}

function httpTransport(url: URL, headers: Record<string, string> = {}): Transport {
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    // The SDK's own fetch piles a listener per request on one signal (and warns past 1,500).
    fetch: ownSignalFetch(),
  });
}

async function measureBlock(p: Path, from: number, to: number): Promise<void> {
  const run = async (i: number): Promise<void> => {
    if (i >= p.between.length) {
      for (let n = from; n < to; n++) p.samples.push(await echo(p, n));
      return;
    }
    const b = p.between[i]!;
    await b.cpu.measure([b.pid], () => run(i + 1));
  };
  await run(0);
}

function report(paths: Path[], skipped: string[], out: (line: string) => void): void {
  const stats = new Map(paths.map((p) => [p.name, summarize(p.samples)]));
  const direct = stats.get('direct')!;
  const ms = (v: number): string => v.toFixed(3);
  const x = (v: number): string => `${v.toFixed(2)}×`;
  out(
    `MCP relay latency: ${CALLS} sequential echo calls per path to server-everything, interleaved in blocks of ${BLOCK} ` +
      `(${WARMUP} warm-up calls each not counted)`,
  );
  out(machine());
  out('');
  const rows = paths.map((p) => {
    const s = stats.get(p.name)!;
    const floorName = FLOOR[p.name];
    const floor = stats.get(floorName);
    const cpu =
      p.between
        .map((b) => {
          const v = b.cpu.perCall(p.samples.length);
          return `${b.label} ${v === undefined ? 'n/a' : v.toFixed(0)}`;
        })
        .join(' + ') || '–';
    const rss = p.between.map((b) => mb(processMemory(b.pid)?.rssKb)).join(' + ') || '–';
    return [
      p.name,
      ms(s.median),
      ms(s.p99),
      x(s.median / direct.median),
      floorName === p.name || !floor ? '–' : `${x(s.median / floor.median)} ${floorName}`,
      cpu,
      p.firstListMs.toFixed(0),
      rss,
    ];
  });
  for (const line of table(['path', 'median ms', 'p99 ms', '÷ direct', '÷ floor', 'CPU µs/call between', 'first list ms', 'RSS between'], rows)) out(line);
  for (const s of skipped) out(`skipped: ${s}`);
  out('');
  out('first list ms: one cold session, spawn (for the broker: connect) to the first tools/list answer; `npm run bench -- cold` has medians.');
  const target = (name: PathName, floorName: PathName, limit: number): void => {
    const s = stats.get(name);
    const f = stats.get(floorName);
    if (!s || !f) return out(`target: ${name} at most ${limit}× ${floorName} (median): not measured`);
    const r = s.median / f.median;
    out(`target: ${name} at most ${limit}× ${floorName} (median): ${x(r)} ${r <= limit ? 'PASS' : 'MISS'}`);
  };
  target('connect', 'byte pipe', TARGET_CONNECT_VS_PIPE);
  target('countersign http', 'http floor', TARGET_HTTP_VS_FLOOR);
}

export const mcpLatency: BenchCase = {
  name: 'mcp',
  async run(out) {
    const paths: Path[] = [];
    const gateways: Gateway[] = [];
    const skipped: string[] = [];
    let broker: BenchBroker | undefined;
    const server = [NODE, EVERYTHING_SERVER];
    try {
      broker = await startBroker([{ name: SERVER, command: server, trusted: true }]);
      const b = broker;
      const stdio = (args: string[]): Transport => new StdioClientTransport({ command: NODE, args, stderr: 'ignore' });
      paths.push(await open('direct', stdio([EVERYTHING_SERVER]), []));
      paths.push(await open('byte pipe', stdio([...FLOOR_FLAGS, BYTE_PIPE, ...server]), [{ label: 'pipe' }]));
      paths.push(await open('socket pipe', stdio([...FLOOR_FLAGS, SOCKET_PIPE, ...server]), [{ label: 'pipe' }]));
      paths.push(await open('connect', stdio([CLI, 'connect', SERVER, '--data-dir', b.dataDir]), [{ label: 'connect' }, { label: 'broker', pid: b.pid }]));
      const gateway = async (kind: GatewayKind, name: PathName): Promise<void> => {
        const missing = gatewayMissing(kind);
        if (missing) return void skipped.push(missing);
        const started = performance.now();
        const g = await startGateway(kind, server);
        gateways.push(g);
        paths.push(await open(name, httpTransport(g.url), [{ label: kind === 'http floor' ? 'relay' : kind, pid: g.pid }], started));
      };
      await gateway('http floor', 'http floor');
      paths.push(
        await open('countersign http', httpTransport(new URL(`${b.baseUrl}/mcp/${SERVER}`), { Authorization: `Bearer ${b.mcpToken}` }), [
          { label: 'broker', pid: b.pid },
        ]),
      );
      await gateway('supergateway', 'supergateway');
      await gateway('mcp-proxy', 'mcp-proxy');

      for (const p of paths) for (let i = 0; i < WARMUP; i++) await echo(p, i);
      for (let done = 0; done < CALLS; done += BLOCK) {
        // Rotate who goes first, so no path always follows the same neighbour.
        const k = (done / BLOCK) % paths.length;
        for (const p of [...paths.slice(k), ...paths.slice(0, k)]) await measureBlock(p, done, Math.min(CALLS, done + BLOCK));
      }
      report(paths, skipped, out);
    } catch (err) {
      const tail = broker?.stderr().trim();
      throw new Error(`${(err as Error).message}${tail ? `\nbroker stderr (tail):\n${tail}` : ''}`);
    } finally {
      await Promise.allSettled(paths.map((p) => p.client.close()));
      await Promise.allSettled(gateways.map((g) => g.stop()));
      await broker?.stop();
    }
  },
};
