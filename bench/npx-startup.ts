// Start-up of an npx-launched server, direct and through Countersign, side by side: from spawning the
// client's command to the first tools/list answer. npx runs offline here (`npx --offline` of a
// devDependency, so no registry is reached): what differs is Countersign alone. The third path is
// Countersign with the network variables taken away (`--no-pass-env`), as every server got them
// before: offline it costs nothing, online behind TLS inspection it is the 72 s of issue 23.
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { resolveCommand } from '../electron/broker/upstream/sandbox/runtime-paths.js';
import { CLI, NODE, ROOT, startBroker, type BenchBroker } from './broker.js';
import type { BenchCase } from './case.js';
import { machine } from './machine.js';
import { median, table } from './stats.js';

const ROUNDS = 9;
const NPX_ARGS = ['--offline', '-y', '@modelcontextprotocol/server-everything'];

interface Path {
  name: string;
  transport: () => StdioClientTransport;
  ms: number[];
}

async function startOnce(p: Path): Promise<void> {
  const client = new Client({ name: 'countersign-bench-npx', version: '1.0.0' });
  const start = performance.now();
  try {
    await client.connect(p.transport());
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === 'echo')) throw new Error(`${p.name}: tools/list has no echo`);
    p.ms.push(performance.now() - start);
  } finally {
    await client.close().catch(() => undefined);
  }
}

export const npxStartup: BenchCase = {
  name: 'npx-startup',
  async run(out) {
    const npx = resolveCommand('npx', process.env.PATH, ROOT);
    if (!npx) throw new Error('npx is not on PATH');
    let broker: BenchBroker | undefined;
    try {
      broker = await startBroker([
        { name: 'npx-everything', command: ['npx', ...NPX_ARGS], addFlags: ['--cwd', ROOT] },
        { name: 'npx-no-env', command: ['npx', ...NPX_ARGS], addFlags: ['--cwd', ROOT, '--no-pass-env'] },
      ]);
      const dataDir = broker.dataDir;
      const via = (server: string) => () =>
        new StdioClientTransport({ command: NODE, args: [CLI, 'connect', server, '--data-dir', dataDir], stderr: 'ignore' });
      const paths: Path[] = [
        {
          name: 'npx direct',
          transport: () => new StdioClientTransport({ command: npx, args: NPX_ARGS, cwd: ROOT, env: process.env as Record<string, string>, stderr: 'ignore' }),
          ms: [],
        },
        { name: 'npx through Countersign', transport: via('npx-everything'), ms: [] },
        { name: 'same, --no-pass-env', transport: via('npx-no-env'), ms: [] },
      ];
      // One round first, not counted (disk cache); then interleaved, so drift spreads over every path.
      for (let round = 0; round <= ROUNDS; round++) {
        for (const p of paths) await startOnce(p);
        if (round === 0) for (const p of paths) p.ms.length = 0;
      }
      const med = (v: number[]): number => median([...v].sort((a, b) => a - b));
      const direct = med(paths[0]!.ms);
      out(`Start-up of server-everything launched by npx (offline: a devDependency), spawn to the first tools/list answer, median of ${ROUNDS}`);
      out('');
      const rows = paths.map((p) => [
        p.name,
        med(p.ms).toFixed(0),
        `${med(p.ms) - direct >= 0 ? '+' : ''}${(med(p.ms) - direct).toFixed(0)}`,
        `${Math.min(...p.ms).toFixed(0)}-${Math.max(...p.ms).toFixed(0)}`,
      ]);
      for (const line of table(['path', 'ms', 'vs direct', 'range'], rows)) out(line);
      const set = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'HTTPS_PROXY', 'https_proxy', 'npm_config_registry'].filter((n) => process.env[n]);
      out('');
      out(machine());
      out(`network variables set here: ${set.length ? set.join(', ') : 'none'} (they now pass to servers; offline, npx needs none of them)`);
    } catch (err) {
      const tail = broker?.stderr().trim();
      throw new Error(`${(err as Error).message}${tail ? `\nbroker stderr (tail):\n${tail}` : ''}`);
    } finally {
      await broker?.stop();
    }
  },
};
