// HTTP sessions are reclaimed: a 2025-11-25 session whose client left without DELETE, and a 2026-07-28
// stateless pool, are closed once idle and their server processes end; one with a call in flight is not.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BrokerStatus } from '../../shared/api.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { PATIENCE_MS } from '../helpers/patience.js';
import { allGone, pidsTagged } from '../helpers/processes.js';
import { connectV2, v2Server } from '../helpers/v2-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const runsNode = (pid: number) => basename(readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0]!) === 'node';
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe('idle HTTP sessions', () => {
  const tag = `cs-idle-${randomUUID()}`;
  const notes = v2Server('1.0.0', tag);
  let broker: TestBroker;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = makeDataDir();
    configure(dataDir, { notes: notes.config }, ['notes']);
    broker = await startServe(dataDir, ['--session-idle', '1']);
  });
  afterAll(async () => {
    await broker.stop();
    removeDir(dataDir);
    removeDir(notes.dir);
  });

  const open = async () => (await broker.api<BrokerStatus>('getStatus')).httpSessions;

  it('closes sessions left without DELETE and stateless pools once idle, and their servers end', async () => {
    const legacy = await connectClient(broker, 'notes', 'http'); // 1.x client: a session
    const modern = await connectV2(broker, 'notes', 'http'); // 2026-07-28: stateless
    expect((await legacy.listTools()).tools.length).toBe(3);
    expect(textOf(await modern.callTool({ name: 'read_note', arguments: { name: 'a' } }))).toBe('note a: hello');
    expect(await open()).toEqual({ sessions: 1, stateless: 1, idleTimeoutSeconds: 1 });
    const pids = pidsTagged(tag); // the servers, and their sandbox's processes
    expect(pids.filter(runsNode).length).toBe(2); // one server per session or pool

    // Both clients go away without a DELETE (closing the 1.x transport drops its GET stream, nothing more).
    await legacy.close();
    await modern.close();
    expect(await allGone(pids, 8000)).toBe(true);
    expect(await open()).toEqual({ sessions: 0, stateless: 0, idleTimeoutSeconds: 1 });
    expect(pidsTagged(tag)).toEqual([]);
  });

  it('keeps a pool whose call waits for a person longer than the idle time', async () => {
    const modern = await connectV2(broker, 'notes', 'http');
    try {
      const call = modern.callTool({ name: 'delete_note', arguments: { name: 'slow' } }, { timeout: 30_000 });
      const pending = await broker.waitForPending((c) => c.tool === 'delete_note');
      // A 1.x session opened after it and left idle: once that one is closed, the idle time has passed for
      // the waiting pool too, and the sweep that closed it has looked at the pool.
      const idle = await connectClient(broker, 'notes', 'http');
      await idle.listTools();
      await idle.close(); // no DELETE: only the idle sweep closes it
      expect((await open())?.sessions).toBe(1);
      await vi.waitFor(async () => expect((await open())?.sessions).toBe(0), { timeout: PATIENCE_MS, interval: 100 });
      expect((await open())?.stateless).toBe(1);
      await broker.api('decide', pending.id, { kind: 'deny', reason: 'checked after a while' });
      expect(textOf(await call)).toMatch(/denied this call: checked after a while/);
    } finally {
      await modern.close();
    }
  });
});
