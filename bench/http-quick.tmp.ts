// TEMP dev script (not committed): http floor vs countersign http only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLI, EVERYTHING_SERVER, NODE, cli } from './broker.js';
import { ownSignalFetch } from '../electron/broker/own-signal-fetch.js';
import { startGateway } from './gateways.js';
import { summarize } from './stats.js';
import { cpuMicros } from './cpu-time.js';

const CALLS = Number(process.env.CALLS ?? 2000), BLOCK = 50, WARM = 300;
const extra = (process.env.BROKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const dataDir = mkdtempSync(join(tmpdir(), 'cs-hb-'));
const ENV = { ...process.env, COUNTERSIGN_HOME: '' };
await cli(dataDir, 'servers', 'add', 'everything', '--', NODE, EVERYTHING_SERVER);
await cli(dataDir, 'servers', 'approve', 'everything');
await cli(dataDir, 'servers', 'trust', 'everything');
const c = spawn(NODE, [...extra, CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--no-open'], { stdio: ['ignore', 'pipe', 'inherit'], env: ENV, cwd: '/tmp/hb' });
process.on('exit', () => c.kill('SIGKILL'));
const ui = await new Promise<string>((r) => createInterface({ input: c.stdout! }).on('line', (l) => { const m = /^Countersign UI: (\S+)$/.exec(l); if (m) r(m[1]!); }));
const token = readFileSync(join(dataDir, 'mcp-token'), 'utf8').trim();
const fl = spawn(NODE, [...(process.env.FLOOR_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.FLOOR_PROF}`, '--cpu-prof-interval=100'] : []), join(import.meta.dirname, 'http-floor.mjs'), NODE, EVERYTHING_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
process.on('exit', () => fl.kill('SIGKILL'));
const port = await new Promise<string>((r) => createInterface({ input: fl.stdout! }).on('line', (l) => { const m = /^listening (\d+)/.exec(l); if (m) r(m[1]!); }));
const g = { url: new URL(`http://127.0.0.1:${port}/mcp`), pid: fl.pid, stop: async () => { fl.kill('SIGINT'); await new Promise((r) => fl.once('exit', r)); } };
async function open(url: URL, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'hb', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: ownSignalFetch() }));
  return client;
}
const paths = [
  { name: 'floor', client: await open(g.url), s: [] as number[], pid: g.pid, cpu: 0 },
  { name: 'cs', client: await open(new URL(`${new URL(ui).origin}/mcp/everything`), { Authorization: `Bearer ${token}` }), s: [] as number[], pid: c.pid, cpu: 0 },
];
const echo = async (p: (typeof paths)[0], n: number) => {
  const t = performance.now();
  const r = (await p.client.callTool({ name: 'echo', arguments: { message: `m${n}` } })) as { content: Array<{ text: string }> };
  if (r.content[0]!.text !== `Echo: m${n}`) throw new Error('bad');
  return performance.now() - t;
};
for (const p of paths) for (let i = 0; i < WARM; i++) await echo(p, i);
if (process.env.STRACE) {
  const { spawn: sp } = await import('node:child_process');
  for (const p of paths) {
    const st = sp('strace', ['-c', '-f', '-p', String(p.pid), '-o', `/tmp/hb/strace-${p.name}.txt`], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 1000));
    for (let i = 0; i < 1000; i++) await echo(p, i);
    st.kill('SIGINT');
    await new Promise((r) => st.once('exit', r));
  }
}
for (let d = 0; d < CALLS; d += BLOCK) for (const p of d % 100 ? paths : [...paths].reverse()) {
  const a = cpuMicros(p.pid)!;
  for (let n = d; n < d + BLOCK; n++) p.s.push(await echo(p, n));
  p.cpu += cpuMicros(p.pid)! - a;
}
const f = summarize(paths[0]!.s).median;
for (const p of paths) { const s = summarize(p.s); console.log(`${p.name}: median ${s.median.toFixed(3)} p99 ${s.p99.toFixed(3)} ratio ${(s.median / f).toFixed(3)} cpu/call ${(p.cpu / CALLS).toFixed(0)}`); }
for (const p of paths) await p.client.close();
await g.stop();
c.kill('SIGTERM');
await new Promise((r) => c.once('exit', r));
