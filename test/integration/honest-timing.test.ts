// Honest timing, with real SDK clients through both ways in: progress keeps a waiting client that
// restarts its clock on progress; the card says when a client is likely to give up; and a client that
// gives up is logged as the agent stopping, never as the person deciding.
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, PendingCall } from '../../shared/api.js';
import { collectEvents, configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { EVERYTHING_SERVER, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.each<Via>(['connect', 'http'])('honest timing via %s', (via) => {
  let broker: TestBroker;

  beforeAll(async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { everything: { command: NODE, args: [EVERYTHING_SERVER] } }); // untrusted: every call asks
    broker = await startServe(dataDir, ['--progress-interval-ms', '200']);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
  });

  it('keeps a client that resets its timeout on progress waiting past its own timeout', async () => {
    const client = await connectClient(broker, 'everything', via);
    try {
      const message = `patient ${via}`;
      const call = client.callTool({ name: 'echo', arguments: { message } }, undefined, {
        timeout: 2500,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      });
      const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === message);
      expect(pending.clientWait).toMatchObject({ basis: 'progress', progress: true, givesUpAt: pending.createdAt + 60_000 });
      await new Promise((r) => setTimeout(r, 5500)); // over twice the client's own timeout
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      expect(textOf(await call)).toContain(message);
    } finally {
      await client.close();
    }
  });

  it('a client that gives up is logged as the agent stopping, and its patience shows on its next card', async () => {
    const client = await connectClient(broker, 'everything', via);
    const live = await collectEvents(broker);
    try {
      const message = `impatient ${via}`;
      const call = client.callTool({ name: 'echo', arguments: { message } }, undefined, { timeout: 1500 }).catch((e: Error) => e);
      const pending = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === message);
      // No progress token and no history: the SDK default applies, not Countersign's 120 s.
      expect(pending.clientWait).toEqual({ basis: 'sdk-default', progress: false, givesUpAt: pending.createdAt + 60_000 });
      expect(pending.expiresAt - pending.createdAt).toBe(120_000);
      const err = await call;
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error).message)).toMatch(/timed out/i);

      const mine = (e: AuditEntry): boolean => (e.arguments as { message?: string }).message === message;
      const entry = (await broker.logWhen({ tool: 'echo' }, (l) => l.some(mine))).find(mine)!;
      expect(entry).toMatchObject({ decision: 'deny', decidedBy: 'client', status: 'cancelled', client: 'countersign-test' });
      expect(entry.actor).toBeUndefined(); // no person, no surface
      expect(entry.detail).toMatch(/^The agent stopped waiting after [12] s \(its client said: .*timed out.*\), before anyone decided\. It was not run\.$/);
      await expect.poll(() => live.events.some((e) => e.type === 'pending-removed' && e.id === pending.id && e.why === 'agent-stopped')).toBe(true);
      expect(await broker.api<PendingCall[]>('listPending')).toEqual([]);

      // The next call of the same client: the card now says when this client gives up, as it showed.
      const again = client.callTool({ name: 'echo', arguments: { message: `${message} 2` } }, undefined, { timeout: 1500 }).catch((e: Error) => e);
      const next = await broker.waitForPending((c) => (c.arguments as { message?: string }).message === `${message} 2`);
      expect(next.clientWait?.basis).toBe('observed');
      expect(next.clientWait!.givesUpAt! - next.createdAt).toBeGreaterThanOrEqual(1000);
      expect(next.clientWait!.givesUpAt! - next.createdAt).toBeLessThanOrEqual(2000);
      await again;
    } finally {
      live.stop();
      await client.close();
    }
  });

  it('a client that closes its session while a call waits is logged as the agent stopping', async () => {
    const client = await connectClient(broker, 'everything', via);
    const message = `left ${via}`;
    void client.callTool({ name: 'echo', arguments: { message } }).catch(() => undefined);
    await broker.waitForPending((c) => (c.arguments as { message?: string }).message === message);
    // Over HTTP a dropped stream is not a cancel (the spec says so; the client may resume): it ends
    // its session with a DELETE. Through connect, its stdin ends.
    if (via === 'http') await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await client.close();
    const mine = (e: AuditEntry): boolean => (e.arguments as { message?: string }).message === message;
    const entry = (await broker.logWhen({ tool: 'echo' }, (l) => l.some(mine))).find(mine)!;
    expect(entry).toMatchObject({ decision: 'deny', status: 'cancelled' });
    expect(entry.decidedBy).toBe('client');
    expect(entry.detail).toMatch(/stopped waiting/);
  });
});
