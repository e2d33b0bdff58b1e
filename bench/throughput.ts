// Throughput with concurrent clients: 8 clients, each with its own stdio session (its own process, as MCP
// clients start them), all calling `echo` at once; direct, through the byte pipe, and through `connect`.
// Rounds alternate between the paths so drift spreads over all three. CPU per call is counted for each kind
// of process over all its threads (V8's compiler and GC threads included): every `connect` is a process of its
// own, so its compile work is paid once per client session.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CLI, EVERYTHING_SERVER, FLOOR_FLAGS, NODE, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { threadCpuMicros } from './cpu-time.js';
import { machine } from './machine.js';
import { descendants } from './process-tree.js';
import { median, table } from './stats.js';

const CLIENTS = 8;
const CALLS_PER_CLIENT = 200;
// Fewer rounds for a quick look (BENCH_TP_ROUNDS=1); the report says how many it ran.
const ROUNDS = Math.max(1, Number(process.env.BENCH_TP_ROUNDS) || 5);
const WARMUP = 100;
const TARGET_CONNECT_VS_PIPE = 0.85;
const SERVER = 'everything';
const BYTE_PIPE = fileURLToPath(new URL('./byte-pipe.mjs', import.meta.url));

type Role = 'relays' | 'broker' | 'servers' | 'clients';
const ROLES: Role[] = ['relays', 'broker', 'servers', 'clients'];

interface Path {
  name: 'direct' | 'byte pipe' | 'connect';
  clients: Client[];
  /** The process each client started (the server, the byte pipe or `connect`). */
  started: number[];
  /** Calls per second, one value per round. */
  rates: number[];
  /** The processes of each kind between the clients and the servers, and their CPU over the rounds (µs, all threads / main thread). */
  pids: Record<Role, number[]>;
  cpu: Record<Role, { all: number; main: number; ok: boolean }>;
}

/** Which processes do what on each path: the bench process holds every SDK client. */
function rolesOf(p: Path, brokerPid: number | undefined): Record<Role, number[]> {
  const clients = [process.pid];
  if (p.name === 'direct') return { relays: [], broker: [], servers: p.started, clients };
  if (p.name === 'byte pipe') return { relays: p.started, broker: [], servers: p.started.flatMap((pid) => descendants(pid)), clients };
  // The broker starts each `connect` session's server (under bwrap where it can).
  return { relays: p.started, broker: brokerPid === undefined ? [] : [brokerPid], servers: descendants(brokerPid), clients };
}

function cpuOf(pids: number[]): { all: number; main: number; ok: boolean } {
  let all = 0;
  let main = 0;
  let ok = true;
  for (const pid of pids) {
    const t = threadCpuMicros(pid);
    if (!t) ok = false;
    else {
      all += t.all;
      main += t.main;
    }
  }
  return { all, main, ok };
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
        const started: number[] = [];
        const none = (): Record<Role, never[]> => ({ relays: [], broker: [], servers: [], clients: [] });
        const zero = (): Path['cpu'] => ({
          relays: { all: 0, main: 0, ok: true },
          broker: { all: 0, main: 0, ok: true },
          servers: { all: 0, main: 0, ok: true },
          clients: { all: 0, main: 0, ok: true },
        });
        paths.push({ name, clients, started, rates: [], pids: none(), cpu: zero() });
        for (let c = 0; c < CLIENTS; c++) {
          const client = new Client({ name: `countersign-bench-tp-${c}`, version: '1.0.0' });
          const transport = new StdioClientTransport({ command: NODE, args: argsOf[name], stderr: 'ignore' });
          await client.connect(transport);
          clients.push(client);
          if (transport.pid) started.push(transport.pid);
        }
        await Promise.all(clients.map((cl, c) => echoLoop(cl, WARMUP, `warm ${c}`)));
      }
      for (const p of paths) p.pids = rolesOf(p, broker.pid);
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 ? [...paths].reverse() : paths;
        for (const p of order) {
          const before = ROLES.map((r) => cpuOf(p.pids[r]));
          const start = performance.now();
          await Promise.all(p.clients.map((cl, c) => echoLoop(cl, CALLS_PER_CLIENT, `r${round} c${c}`)));
          p.rates.push((CLIENTS * CALLS_PER_CLIENT) / ((performance.now() - start) / 1000));
          ROLES.forEach((r, i) => {
            const after = cpuOf(p.pids[r]);
            const acc = p.cpu[r];
            acc.all += after.all - before[i]!.all;
            acc.main += after.main - before[i]!.main;
            acc.ok &&= after.ok && before[i]!.ok;
          });
        }
      }
      const rate = (p: Path): number => median([...p.rates].sort((a, b) => a - b));
      const [direct, pipe, connect] = paths.map(rate) as [number, number, number];
      out(
        `Throughput: ${CLIENTS} clients at once, each in its own session, ${CALLS_PER_CLIENT} echo calls each per round (median of ${ROUNDS} rounds, after ${WARMUP} warm-up calls per client)`,
      );
      out(machine());
      out('');
      const rows = paths.map((p) => [
        p.name,
        rate(p).toFixed(0),
        `${(rate(p) / direct).toFixed(2)}×`,
        p.name === 'connect' ? `${(connect / pipe).toFixed(2)}× byte pipe` : '–',
      ]);
      for (const line of table(['path', 'calls/s', '÷ direct', '÷ floor'], rows)) out(line);
      out('');
      out("CPU µs per call, all threads of each kind of process (in brackets: V8's helper threads, mostly its optimizing compiler)");
      const calls = CLIENTS * CALLS_PER_CLIENT * ROUNDS;
      const us = (c: { all: number; main: number; ok: boolean }, n: number, helpers: boolean): string =>
        !c.ok ? 'n/a' : n === 0 ? '–' : `${(c.all / calls).toFixed(0)}${helpers ? ` (${((c.all - c.main) / calls).toFixed(0)})` : ''}`;
      const cpuRows = paths.map((p) => [
        p.name,
        ...ROLES.map((r) => us(p.cpu[r], p.pids[r].length, r !== 'clients')),
        ROLES.every((r) => p.cpu[r].ok) ? (ROLES.reduce((a, r) => a + p.cpu[r].all, 0) / calls).toFixed(0) : 'n/a',
      ]);
      for (const line of table(['path', `relays (${CLIENTS})`, 'broker', 'servers', 'clients (bench)', 'total'], cpuRows)) out(line);
      out('');
      const r = connect / pipe;
      out(
        `target: ${CLIENTS} clients through connect at least ${TARGET_CONNECT_VS_PIPE}× of ${CLIENTS} through the byte pipe: ${r.toFixed(2)}× ${r >= TARGET_CONNECT_VS_PIPE ? 'PASS' : 'MISS'}`,
      );
    } catch (err) {
      const tail = broker?.stderr().trim();
      throw new Error(`${(err as Error).message}${tail ? `\nbroker stderr (tail):\n${tail}` : ''}`);
    } finally {
      await Promise.allSettled(paths.flatMap((p) => p.clients.map((c) => c.close())));
      await broker?.stop();
    }
  },
};
