import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, EVERYTHING_SERVER, NODE, startBroker } from './broker.js';
const dir = process.argv[2]!;
const broker = await startBroker([{ name: 'everything', command: [NODE, EVERYTHING_SERVER], trusted: true }]);
try {
  const client = new Client({ name: 'prof', version: '1' });
  await client.connect(new StdioClientTransport({ command: NODE, args: process.argv[3] === 'pipe' ? ['--cpu-prof', '--cpu-prof-dir', dir, 'bench/byte-pipe.mjs', NODE, EVERYTHING_SERVER] : ['--cpu-prof', '--cpu-prof-dir', dir, CLI, 'connect', 'everything', '--data-dir', broker.dataDir], stderr: 'inherit' }));
  const t = performance.now();
  for (let i = 0; i < 4000; i++) await client.callTool({ name: 'echo', arguments: { message: `m ${i}` } });
  console.log('ms/call', (performance.now() - t) / 4000);
  await client.close();
  await new Promise((r) => setTimeout(r, 1500));
} finally { await broker.stop(); }
