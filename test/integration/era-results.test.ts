// Results Countersign makes itself (denials, timeouts, quarantine) read by a real v2 client speaking
// 2026-07-28, through `connect` and over stateless HTTP: proper tool results carrying the reason.
import { readFileSync, existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { pinShown } from '../helpers/consent.js';
import { connectV2, MODERN, v2Server } from '../helpers/v2-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.each<Via>(['connect', 'http'])('a 2026-07-28 client via %s reads what Countersign decided', (via) => {
  let broker: TestBroker;
  let dataDir: string;
  const notes = v2Server('1.0.0');
  const pinned = v2Server('1.0.0');
  const callsOf = (file: string) =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { tool: string })
      : [];

  beforeAll(async () => {
    dataDir = makeDataDir();
    configure(dataDir, { notes: notes.config, pinned: pinned.config }, ['notes', 'pinned']);
    broker = await startServe(dataDir);
  });
  afterAll(async () => {
    await broker.stop();
    removeDir(dataDir);
    removeDir(notes.dir);
    removeDir(pinned.dir);
  });

  it('negotiates 2026-07-28 and runs a read-only tool', async () => {
    const client = await connectV2(broker, 'notes', via);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['delete_note', 'open_link', 'read_note']);
      expect(textOf(await client.callTool({ name: 'read_note', arguments: { name: 'a' } }))).toBe('note a: hello');
    } finally {
      await client.close();
    }
  });

  it('a denial with its reason', async () => {
    const client = await connectV2(broker, 'notes', via);
    try {
      const before = callsOf(notes.callsFile).length;
      const call = client.callTool({ name: 'delete_note', arguments: { name: `deny-${via}` } });
      const pending = await broker.waitForPending((c) => c.tool === 'delete_note');
      await broker.api('decide', pending.id, { kind: 'deny', reason: 'not today' });
      const result = (await call) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/denied this call: not today/);
      expect(callsOf(notes.callsFile).length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('a timeout with its reason', async () => {
    await broker.api('updateSettings', { approvalTimeoutSeconds: 1 });
    const client = await connectV2(broker, 'notes', via);
    try {
      const result = (await client.callTool({ name: 'delete_note', arguments: { name: `late-${via}` } })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/No one approved this call within 1 s/);
    } finally {
      await client.close();
      await broker.api('updateSettings', { approvalTimeoutSeconds: 120 });
    }
  });

  it('a quarantine with its reason, and a pin enforced without initialize', async () => {
    pinned.setVersion('1.0.0');
    await pinShown(broker.api, 'pinned');
    pinned.setVersion('2.0.0'); // "a new release was installed"
    const client = await connectV2(broker, 'pinned', via);
    try {
      const result = (await client.callTool({ name: 'read_note', arguments: { name: 'x' } })) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/quarantined because it reports version 2\.0\.0, but is pinned to 1\.0\.0/);
      expect(callsOf(pinned.callsFile).filter((c) => c.tool === 'read_note')).toEqual([]);
      const log = await broker.api<AuditEntry[]>('queryLog', { server: 'pinned', tool: 'read_note' });
      expect(log.at(-1)).toMatchObject({ decision: 'deny', status: 'denied' });
    } finally {
      await client.close();
    }
  });
});
