// Relay mode's report connection: `connect` writes the reports of its calls on a socket of their own that
// the broker reads in batches. Through real processes: every call is still logged, in the order calls ran,
// also when `connect` is killed before the broker has read a thing; the socket takes nothing without a token.
import { statSync } from 'node:fs';
import { connect } from 'node:net';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportsSocketPath } from '../../electron/broker/store/data-dir.js';
import type { AuditEntry } from '../../shared/api.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const numbers = (log: AuditEntry[]) => log.map((e) => (e.arguments as { n: number | string }).n);

describe('relay mode report connection', () => {
  let broker: TestBroker;

  beforeAll(async () => {
    const dataDir = makeDataDir();
    const tree = { command: NODE, args: [FIXTURE, 'crash'] };
    configure(dataDir, { order: tree, burst: tree }, ['order', 'burst']);
    broker = await startServe(dataDir);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
  });

  it('is a private socket, and drops a connection whose token names no session', async () => {
    const file = reportsSocketPath(broker.dataDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const socket = connect(file);
    socket.on('error', () => undefined);
    socket.write(JSON.stringify({ countersign: 1, reports: 'no-such-token' }) + '\n');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    await new Promise((resolve) => socket.on('close', resolve));
    expect(answer).toBe('');
  });

  it('logs calls run under a lease before the decision that follows them, though read in batches', async () => {
    const client = await connectClient(broker, 'order', 'connect');
    try {
      for (let n = 0; n < 6; n++) expect(textOf(await client.callTool({ name: 'ok', arguments: { n } }))).toBe('ok');
      // At once: arguments too deep for a lease ask the broker, which refuses and logs it on the spot.
      // It reads the reports `connect` wrote before it decides, so the refusal comes after those calls.
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 80; i++) deep = { deep };
      const refused = (await client.callTool({ name: 'ok', arguments: deep })) as ToolResult;
      expect(refused.isError).toBe(true);
      const log = await broker.api<AuditEntry[]>('queryLog', { server: 'order', tool: 'ok' });
      const oldestFirst = [...log].sort((a, b) => a.seq - b.seq);
      expect(oldestFirst).toHaveLength(7);
      expect(numbers(oldestFirst.slice(0, 6))).toEqual([0, 1, 2, 3, 4, 5]);
      expect(oldestFirst[6]).toMatchObject({ decision: 'deny', status: 'denied' });
    } finally {
      await client.close();
    }
  });

  it('loses no entry when connect is killed with -9 while the broker has read none of its reports', async () => {
    const client = await connectClient(broker, 'burst', 'connect');
    const connectPid = (client.transport as StdioClientTransport).pid!;
    const brokerPid = broker.child.pid!;
    let next = 0;
    const answered: number[] = [];
    const call = async (): Promise<void> => {
      const n = next++;
      expect(textOf(await client.callTool({ name: 'ok', arguments: { n } }))).toBe('ok');
      answered.push(n);
    };
    const timeout = (ms: number) => new Promise<'late'>((resolve) => setTimeout(resolve, ms, 'late'));
    // Calls earn a lease; then the broker is stopped, and calls go on under the lease (each reported into
    // the kernel first) until it lapses. A lease may have lapsed by then: try again.
    let underStop = 0;
    for (let attempt = 0; attempt < 5 && underStop === 0; attempt++) {
      for (let i = 0; i < 3; i++) await call();
      process.kill(brokerPid, 'SIGSTOP');
      let waiting: Promise<void> | undefined;
      try {
        const started = Date.now();
        while (underStop < 20 && Date.now() - started < 100) {
          const pending = call();
          if ((await Promise.race([pending, timeout(150)])) === 'late') {
            waiting = pending; // it asks the stopped broker
            break;
          }
          underStop += 1;
        }
        if (underStop > 0) process.kill(connectPid, 'SIGKILL');
      } finally {
        process.kill(brokerPid, 'SIGCONT');
      }
      if (underStop === 0) await waiting;
    }
    expect(underStop).toBeGreaterThan(0);
    const log = await broker.logWhen({ server: 'burst', tool: 'ok' }, (l) => l.filter((e) => e.status === 'ok').length >= answered.length);
    const ok = [...log].sort((a, b) => a.seq - b.seq).filter((e) => e.status === 'ok');
    expect(numbers(ok)).toEqual(answered);
    await client.close().catch(() => undefined);
  });
});
