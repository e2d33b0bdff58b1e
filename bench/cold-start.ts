// Cold start and memory of the `countersign` command, side by side with what it stands in for:
// - a stdio session: from spawning the client's command to the first tools/list answer, directly to
//   server-everything, through a bare byte pipe (one extra Node process that copies bytes), and through
//   `countersign connect`; then the resident memory of the process the client started, after 20 calls;
// - one-shot commands (`--help`, `servers list` against a running broker) beside a bare `node`: time to
//   exit and peak memory.
// Rounds are interleaved so drift spreads over every path.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, EVERYTHING_SERVER, FLOOR_FLAGS, NODE, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { mb, processMemory } from './process-memory.js';
import { median, table } from './stats.js';

const ROUNDS = 9;
const CALLS_BEFORE_MEMORY = 20;
const TARGET_EXTRA_MS = 100;
const TARGET_CONNECT_MB = 45;
const SERVER = 'everything';
const BYTE_PIPE = fileURLToPath(new URL('./byte-pipe.mjs', import.meta.url));
const PEAK_HOOK = fileURLToPath(new URL('./peak-rss.cjs', import.meta.url));
const EMPTY = fileURLToPath(new URL('./empty.mjs', import.meta.url));

interface SessionPath {
  name: string;
  args: string[];
  ms: number[];
  rssKb: number[];
  peakKb: number[];
}

interface CommandPath {
  name: string;
  args: string[];
  ms: number[];
  peakKb: number[];
}

async function session(p: SessionPath): Promise<void> {
  const transport = new StdioClientTransport({ command: NODE, args: p.args, stderr: 'ignore' });
  const client = new Client({ name: 'countersign-bench-cold', version: '1.0.0' });
  const start = performance.now();
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const elapsed = performance.now() - start;
    if (!tools.some((t) => t.name === 'echo')) throw new Error(`${p.name}: tools/list has no echo`);
    for (let i = 0; i < CALLS_BEFORE_MEMORY; i++) await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
    p.ms.push(elapsed);
    const mem = processMemory(transport.pid ?? undefined);
    if (mem) {
      p.rssKb.push(mem.rssKb);
      p.peakKb.push(mem.peakKb);
    }
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Runs a command to its end; the peak-memory hook reports on fd 3. */
function command(p: CommandPath): Promise<void> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(NODE, ['--require', PEAK_HOOK, ...p.args], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, COUNTERSIGN_HOME: '' },
    });
    let peak = '';
    let stderr = '';
    child.stdout!.resume();
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdio[3]!.on('data', (c: Buffer) => (peak += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`${p.name} exited with ${code}: ${stderr.slice(-500)}`));
      p.ms.push(performance.now() - start);
      const kb = Number(peak.trim());
      if (peak && Number.isFinite(kb)) p.peakKb.push(kb);
      resolve();
    });
  });
}

const med = (v: number[]): number | undefined => (v.length ? median([...v].sort((a, b) => a - b)) : undefined);
const ms = (v: number | undefined): string => (v === undefined ? 'n/a' : v.toFixed(0));

export const coldStart: BenchCase = {
  name: 'cold',
  async run(out) {
    let broker: BenchBroker | undefined;
    try {
      broker = await startBroker([{ name: SERVER, command: [NODE, EVERYTHING_SERVER], trusted: true }]);
      const sessions: SessionPath[] = [
        { name: 'direct', args: [EVERYTHING_SERVER], ms: [], rssKb: [], peakKb: [] },
        { name: 'byte pipe', args: [...FLOOR_FLAGS, BYTE_PIPE, NODE, EVERYTHING_SERVER], ms: [], rssKb: [], peakKb: [] },
        { name: 'connect', args: [CLI, 'connect', SERVER, '--data-dir', broker.dataDir], ms: [], rssKb: [], peakKb: [] },
      ];
      const commands: CommandPath[] = [
        { name: 'node (empty script)', args: [EMPTY], ms: [], peakKb: [] },
        { name: 'countersign --help', args: [CLI, '--help'], ms: [], peakKb: [] },
        { name: 'countersign servers list', args: [CLI, 'servers', 'list', '--data-dir', broker.dataDir], ms: [], peakKb: [] },
      ];
      // One round first, not counted: it warms the disk cache for every path alike.
      for (let round = 0; round <= ROUNDS; round++) {
        for (const p of sessions) await session(p);
        for (const c of commands) await command(c);
        if (round === 0)
          for (const p of [...sessions, ...commands]) for (const samples of [p.ms, p.peakKb, (p as Partial<SessionPath>).rssKb ?? []]) samples.length = 0;
      }
      out(`Cold start of a stdio session: spawn to the first tools/list answer from server-everything (median of ${ROUNDS})`);
      out(`and the memory of the process the client started, after ${CALLS_BEFORE_MEMORY} echo calls`);
      out('');
      const direct = med(sessions[0]!.ms)!;
      const rows = sessions.map((p) => {
        const m = med(p.ms)!;
        return [p.name, ms(m), `+${ms(m - direct)}`, mb(med(p.rssKb)), mb(med(p.peakKb))];
      });
      for (const line of table(['path', 'cold start ms', 'vs direct', 'RSS', 'peak RSS'], rows)) out(line);
      out('');
      const bare = med(commands[0]!.ms)!;
      const cmdRows = commands.map((c) => [c.name, ms(med(c.ms)), `+${ms(med(c.ms)! - bare)}`, mb(med(c.peakKb))]);
      for (const line of table(['command', 'ms to exit', 'vs node', 'peak RSS'], cmdRows)) out(line);
      out('');
      const connect = sessions[2]!;
      const extra = med(connect.ms)! - direct;
      out(`target: connect cold start at most direct + ${TARGET_EXTRA_MS} ms: +${ms(extra)} ms ${extra <= TARGET_EXTRA_MS ? 'PASS' : 'FAIL'}`);
      const peak = med(connect.peakKb);
      out(
        `target: one connect process at most ${TARGET_CONNECT_MB} MB: ${mb(peak)} peak ${peak === undefined ? '(not measured on this OS)' : peak / 1024 <= TARGET_CONNECT_MB ? 'PASS' : 'FAIL'}`,
      );
    } catch (err) {
      const tail = broker?.stderr().trim();
      throw new Error(`${(err as Error).message}${tail ? `\nbroker stderr (tail):\n${tail}` : ''}`);
    } finally {
      await broker?.stop();
    }
  },
};
