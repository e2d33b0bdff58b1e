import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, EVERYTHING_SERVER, NODE, startBroker } from './broker.js';
import { cpuMicros } from './cpu-time.js';
import { summarize } from './stats.js';
const broker = await startBroker([{ name: 'everything', command: [NODE, EVERYTHING_SERVER], trusted: true }]);
const variants: Array<[string, string[], Record<string,string>]> = [['pipe', ['bench/byte-pipe.mjs', NODE, EVERYTHING_SERVER], {}], ['connect', [CLI, 'connect', 'everything', '--data-dir', broker.dataDir], {}], ['socket pipe', ['bench/socket-pipe.mjs', NODE, EVERYTHING_SERVER], {}]];
try {
  const cs = [] as Array<{ name: string; c: Client; pid: number; s: number[]; cpu: number }>;
  for (const [name, args, env] of variants) {
    const t = new StdioClientTransport({ command: NODE, args, stderr: 'inherit', env: { ...process.env as Record<string,string>, ...env } });
    const c = new Client({ name: 'q', version: '1' }); await c.connect(t);
    cs.push({ name, c, pid: t.pid!, s: [], cpu: 0 });
  }
  for (const x of cs) for (let i = 0; i < 300; i++) await x.c.callTool({ name: 'echo', arguments: { message: `w${i}` } });
  for (let b = 0; b < 30; b++) for (const x of cs) {
    const c0 = cpuMicros(x.pid)!;
    for (let i = 0; i < 50; i++) { const t = performance.now(); await x.c.callTool({ name: 'echo', arguments: { message: `m${i}` } }); x.s.push(performance.now() - t); }
    x.cpu += cpuMicros(x.pid)! - c0;
  }
  const base = summarize(cs[0]!.s).median;
  for (const x of cs) console.log(x.name.padEnd(12), summarize(x.s).median.toFixed(3), (summarize(x.s).median / base).toFixed(2) + 'x', 'cpu', (x.cpu / x.s.length).toFixed(0));
  for (const x of cs) await x.c.close();
} finally { await broker.stop(); }
