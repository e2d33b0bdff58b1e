import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync, spawn } from 'node:child_process';
import { CLI, EVERYTHING_SERVER, NODE, startBroker } from './broker.js';
const broker = await startBroker([{ name: 'everything', command: [NODE, EVERYTHING_SERVER], trusted: true }]);
const which = process.argv[2] ?? 'connect';
const args = which === 'pipe' ? ['--perf-basic-prof', 'bench/byte-pipe.mjs', NODE, EVERYTHING_SERVER] : ['--perf-basic-prof', CLI, 'connect', 'everything', '--data-dir', broker.dataDir];
try {
  const t = new StdioClientTransport({ command: NODE, args, stderr: 'inherit' });
  const c = new Client({ name: 'q', version: '1' }); await c.connect(t);
  for (let i = 0; i < 300; i++) await c.callTool({ name: 'echo', arguments: { message: `w${i}` } });
  const rec = spawn('perf', ['record', '-F', '4000', '-g', '-o', `/tmp/perfprof/${which}.data`, '-p', String(t.pid)], { stdio: 'inherit' });
  await new Promise((r) => setTimeout(r, 300));
  const t0 = performance.now(); let n = 0;
  while (performance.now() - t0 < 8000) { await c.callTool({ name: 'echo', arguments: { message: `m${n++}` } }); }
  rec.kill('SIGINT'); await new Promise((r) => rec.once('exit', r));
  console.log(which, 'calls', n);
  await c.close();
} finally { await broker.stop(); }
