// Resident memory of an idle broker (`countersign serve`, one server configured), beside a bare idle
// `node` process: right after start, and after calls over HTTP once the session is closed and the
// process has sat idle (V8 gives memory back on its own when nothing runs). Medians of a few rounds.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING_SERVER, NODE, startBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { ownSignalFetch } from '../electron/broker/upstream/own-signal-fetch.js';
import { mb, processMemory } from './process-memory.js';
import { median, table } from './stats.js';

const ROUNDS = 3;
const CALLS = 200;
const SETTLE_MS = 3000;
const IDLE_MS = 8000;
const TARGET_IDLE_MB = 60;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bareNodeKb(): Promise<number | undefined> {
  const child = spawn(NODE, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  await sleep(SETTLE_MS);
  const kb = processMemory(child.pid)?.rssKb;
  child.kill();
  return kb;
}

async function brokerRound(): Promise<{ startKb?: number; afterKb?: number; peakKb?: number }> {
  const broker = await startBroker([{ name: 'everything', command: [NODE, EVERYTHING_SERVER], trusted: true }]);
  try {
    await sleep(SETTLE_MS);
    const startKb = processMemory(broker.pid)?.rssKb;
    const client = new Client({ name: 'countersign-bench-idle', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/everything`), {
        requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } },
        fetch: ownSignalFetch(),
      }),
    );
    await client.listTools();
    for (let i = 0; i < CALLS; i++) await client.callTool({ name: 'echo', arguments: { message: `idle ${i}` } });
    await client.close();
    await sleep(IDLE_MS);
    const mem = processMemory(broker.pid);
    return { startKb, afterKb: mem?.rssKb, peakKb: mem?.peakKb };
  } finally {
    await broker.stop();
  }
}

export const idleMemory: BenchCase = {
  name: 'idle',
  async run(out) {
    const bare: number[] = [];
    const start: number[] = [];
    const after: number[] = [];
    const peak: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const b = await bareNodeKb();
      if (b !== undefined) bare.push(b);
      const round = await brokerRound();
      if (round.startKb !== undefined) start.push(round.startKb);
      if (round.afterKb !== undefined) after.push(round.afterKb);
      if (round.peakKb !== undefined) peak.push(round.peakKb);
    }
    const m = (xs: number[]): number | undefined => (xs.length ? median([...xs].sort((a, b) => a - b)) : undefined);
    out(
      `Broker idle memory: countersign serve with one server configured, ${ROUNDS} rounds (medians); ` +
        `after ${CALLS} echo calls over HTTP, the session closed and ${IDLE_MS / 1000} s idle`,
    );
    out('');
    for (const line of table(
      ['process', 'RSS after start', `RSS after ${CALLS} calls, idle`, 'peak RSS'],
      [
        ['bare node', mb(m(bare)), '–', '–'],
        ['countersign serve', mb(m(start)), mb(m(after)), mb(m(peak))],
      ],
    ))
      out(line);
    const idle = m(after) ?? m(start);
    if (idle === undefined) return out('target: broker idle RSS: not measured (needs /proc)');
    const worst = Math.max(m(start) ?? 0, m(after) ?? 0) / 1024;
    out(`target: broker idle RSS at most ${TARGET_IDLE_MB} MB: ${worst.toFixed(1)} MB ${worst <= TARGET_IDLE_MB ? 'PASS' : 'MISS'}`);
  },
};
