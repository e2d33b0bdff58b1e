// Every pairing of revisions through Countersign, both ways in: a v2 client (negotiating, so it falls back
// to 2025-11-25) with a 1.x server, and a 1.x client (2025-11-25) with the dual-era v2 server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { mutableServer, readNotes } from '../helpers/mutable.js';
import { connectV2, MODERN, v2Server } from '../helpers/v2-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.each<Via>(['connect', 'http'])('pairings via %s', (via) => {
  const legacyServer = mutableServer({ version: '3.1.0', tools: [readNotes] });
  const modernServer = v2Server('1.0.0');
  let broker: TestBroker;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = makeDataDir();
    configure(dataDir, { old: legacyServer.config, notes: modernServer.config }, ['old', 'notes']);
    broker = await startServe(dataDir);
  });
  afterAll(async () => {
    await broker.stop();
    removeDir(dataDir);
    removeDir(legacyServer.dir);
    removeDir(modernServer.dir);
  });

  it('a v2 client with a 1.x server: falls back to 2025-11-25 and works', async () => {
    const client = await connectV2(broker, 'old', via, { mode: 'auto' });
    try {
      expect(client.getNegotiatedProtocolVersion()).not.toBe(MODERN);
      expect(textOf(await client.callTool({ name: 'read_notes', arguments: { path: 'x' } }))).toBe('ran read_notes');
      expect(legacyServer.calls()).toEqual([{ name: 'read_notes', arguments: { path: 'x' } }]);
    } finally {
      await client.close();
    }
  });

  it('a v2 client pinned to 2026-07-28 with a 1.x server: refused by the server, not by Countersign', async () => {
    const err = await connectV2(broker, 'old', via).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/did not offer pinned protocol version 2026-07-28/);
  });

  it('a 1.x client with the v2 server: 2025-11-25, including its elicitation', async () => {
    const client = await connectClient(broker, 'notes', via, { elicitation: () => ({ action: 'accept', content: { confirm: true } }) });
    try {
      expect(textOf(await client.callTool({ name: 'read_note', arguments: { name: 'a' } }))).toBe('note a: hello');
      const call = client.callTool({ name: 'delete_note', arguments: { name: `old-${via}` } });
      const pending = await broker.waitForPending((c) => c.tool === 'delete_note');
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      expect(textOf(await call)).toBe(`deleted old-${via}`);
    } finally {
      await client.close();
    }
  });
});
