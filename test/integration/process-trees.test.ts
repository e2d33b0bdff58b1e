// A server's whole process tree ends with it, including what left its process group: a child that
// called setsid and a double-forked daemon, both ignoring SIGTERM. Through the real broker (a PID
// namespace per server, where bubblewrap works) and, in-process, through the unsandboxed fallback.
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { NO_LIMITS } from '../../shared/limits.js';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { StdioUpstream } from '../../electron/broker/upstream/stdio-upstream.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { FIXTURE, NODE } from '../helpers/paths.js';
import { allGone, pidsTagged } from '../helpers/processes.js';

type ToolResult = { content: Array<{ type: string; text?: string }> };
const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** Runs 'escape' and returns the host PIDs of the server's setsid child and its double-forked daemon. */
async function escapees(client: Client): Promise<number[]> {
  const { tag } = JSON.parse(textOf(await client.callTool({ name: 'escape', arguments: {} }))) as { tag: string };
  const pids = pidsTagged(tag);
  expect(pids).toHaveLength(2);
  return pids;
}

async function withBroker(fn: (broker: TestBroker) => Promise<void>): Promise<void> {
  const dataDir = makeDataDir();
  configure(dataDir, { tree: { command: NODE, args: [FIXTURE, 'tree'] } }, ['tree']);
  const broker = await startServe(dataDir);
  try {
    await fn(broker);
  } finally {
    await broker.stop();
    removeDir(dataDir);
  }
}

describe.skipIf(process.platform !== 'linux')('process trees end with their server', () => {
  it.each(['connect', 'http'] as Via[])('when the broker quits (via %s)', async (via) => {
    let pids: number[] = [];
    await withBroker(async (broker) => {
      const client = await connectClient(broker, 'tree', via);
      pids = await escapees(client);
      await broker.stop();
      await client.close().catch(() => undefined);
    });
    expect(await allGone(pids)).toBe(true);
  });

  it('when the broker itself is killed -9 (bubblewrap --die-with-parent)', async () => {
    await withBroker(async (broker) => {
      const client = await connectClient(broker, 'tree', 'http');
      const pids = await escapees(client);
      const dead = new Promise((r) => broker.child.once('exit', r));
      broker.child.kill('SIGKILL');
      await dead;
      expect(await allGone(pids)).toBe(true);
      await client.close().catch(() => undefined);
    });
  });

  it("when connect is killed -9 (relay mode: the server's stdio is connect's socket)", async () => {
    await withBroker(async (broker) => {
      const client = await connectClient(broker, 'tree', 'connect');
      const pids = await escapees(client);
      process.kill((client.transport as StdioClientTransport).pid!, 'SIGKILL');
      expect(await allGone(pids)).toBe(true);
      await client.close().catch(() => undefined);
    });
  });

  it.each(['connect', 'http'] as Via[])('when the server is removed (via %s)', async (via) => {
    await withBroker(async (broker) => {
      const client = await connectClient(broker, 'tree', via);
      try {
        const pids = await escapees(client);
        await broker.api('removeServer', 'tree');
        expect(await allGone(pids)).toBe(true);
      } finally {
        await client.close().catch(() => undefined);
      }
    });
  });

  it('without a sandbox too: the descendant sweep finds them by parent link and tree marker', async () => {
    const support = await detectSandbox({ bwrapPaths: ['/nonexistent/bwrap'] });
    const upstream = new StdioUpstream({ command: NODE, args: [FIXTURE, 'tree'] }, { sandbox: { limits: NO_LIMITS, support } });
    const client = new Client({ name: 'tree-test', version: '1.0.0' });
    await client.connect(upstream as unknown as Transport);
    let pids: number[] = [];
    try {
      expect(upstream.enforcement).toMatchObject({ sandbox: 'none', processes: 'not enforced' });
      pids = await escapees(client);
    } finally {
      await client.close();
    }
    expect(await allGone(pids)).toBe(true);
  });
});
