// Policy across calls: exfiltration after local reads, retries only where safe, pagination, scrubbed env.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AuditEntry, PendingCall } from '../../shared/api.js';
import { pollUntil } from '../helpers/patience.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/**
 * A later call through the same client to the same server, approved and answered. Whatever the broker
 * forwarded before it reached the server first (one pipe, read in order): once this answers, a call that
 * was not forwarded by then never was. It stands in for "wait a while and see that nothing came".
 */
async function laterCallAnswered(broker: TestBroker, client: Client, tool: string, counter: string): Promise<void> {
  const call = client.callTool({ name: tool, arguments: { counter } });
  const pending = await broker.waitForPending((c) => c.tool === tool && (c.arguments as { counter?: string }).counter === counter);
  await broker.api('decide', pending.id, { kind: 'allow-once' });
  expect(((await call) as ToolResult).isError).toBeFalsy();
}

describe('policy across calls', () => {
  let broker: TestBroker;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cs-policy-'));
    writeFileSync(join(scratch, 'secret.txt'), 'the secret');
    const dataDir = makeDataDir();
    configure(
      dataDir,
      {
        fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] },
        everything: { command: NODE, args: [EVERYTHING_SERVER], env: { CONFIGURED_FOR_SERVER: 'yes' } },
        sampler: { command: NODE, args: [EVERYTHING_SERVER] },
        slow: { command: NODE, args: [FIXTURE, 'slow'] },
        'slow-untrusted': { command: NODE, args: [FIXTURE, 'slow'] },
        paged: { command: NODE, args: [FIXTURE, 'paged'] },
        counter: { command: NODE, args: [FIXTURE, 'counter'] },
      },
      ['fs', 'everything', 'sampler', 'slow', 'paged', 'counter'],
    );
    process.env.COUNTERSIGN_TEST_LEAK = 'must-not-leak';
    broker = await startServe(dataDir);
    delete process.env.COUNTERSIGN_TEST_LEAK;
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
    removeDir(scratch);
  });

  it("starts stdio servers with a scrubbed environment plus the server's own variables", async () => {
    const client = await connectClient(broker, 'everything', 'http');
    try {
      const env = textOf(await client.callTool({ name: 'get-env', arguments: {} }));
      expect(env).toContain('CONFIGURED_FOR_SERVER');
      expect(env).toContain('PATH');
      expect(env).not.toContain('COUNTERSIGN_TEST_LEAK');
      expect(env).not.toContain('must-not-leak');
    } finally {
      await client.close();
    }
  });

  it('asks for an open-world call once the same client read local data, even on a trusted server', async () => {
    // Both connect processes are children of this test process: one client.
    const fs = await connectClient(broker, 'fs', 'connect');
    // server-everything offers its open-world sampling tool only to clients that can sample.
    const ev = await connectClient(broker, 'sampler', 'connect', { sampling: () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'x' } }) });
    try {
      // Before any local read, the trusted server's open-world call is a plain ask (it is not read-only).
      expect(textOf(await fs.callTool({ name: 'read_text_file', arguments: { path: join(scratch, 'secret.txt') } }))).toBe('the secret');
      const call = ev.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'the secret' } }).catch((e: Error) => e);
      const pending = await broker.waitForPending((c) => c.tool === 'trigger-sampling-request');
      expect(pending.reasons[0]?.code).toBe('exfiltration-risk');
      await broker.api('decide', pending.id, { kind: 'deny' });
      await call;
    } finally {
      await fs.close();
      await ev.close();
    }
  });

  it.each(['connect', 'http'] as const)(
    "retries a trusted server's idempotent call once after an upstream timeout, and logs both attempts (via %s)",
    async (via) => {
      await broker.api('updateSettings', { upstreamTimeoutSeconds: 1 });
      const counterFile = join(scratch, `idem-count-${via}`);
      const client = await connectClient(broker, 'slow', via);
      try {
        // The fixture never answers the first call: only the timeout ends it, however long the machine takes.
        const call = client.callTool({ name: 'slow_idempotent', arguments: { counter: counterFile } });
        const pending = await broker.waitForPending((c) => c.tool === 'slow_idempotent' && (c.arguments as { counter?: string }).counter === counterFile);
        await broker.api('decide', pending.id, { kind: 'allow-once' });
        expect(textOf(await call)).toBe('answered call 2');
        expect(readFileSync(counterFile, 'utf8')).toBe('2');
        const mine = (e: AuditEntry) => (e.arguments as { counter?: string }).counter === counterFile;
        const entries = (await broker.logWhen({ tool: 'slow_idempotent' }, (l) => l.some((e) => mine(e) && e.status === 'ok'))).filter(mine);
        // One entry for the call, which says it was sent twice and how each sending ended.
        expect(entries).toHaveLength(1);
        expect(entries[0]).toMatchObject({ decision: 'allow', decidedBy: 'person', status: 'ok' });
        expect(entries[0]!.attempts).toEqual([
          {
            status: 'timeout',
            durationMs: expect.any(Number),
            detail: expect.stringMatching(/^No answer within 1 s: Countersign cancelled it and sent the call again/),
          },
          { status: 'ok', durationMs: expect.any(Number) },
        ]);
        expect(entries[0]!.attempts![0]!.durationMs).toBeGreaterThanOrEqual(1000);
      } finally {
        await client.close();
        await broker.api('updateSettings', { upstreamTimeoutSeconds: 300 });
      }
    },
  );

  it('logs both attempts of a retried call that timed out twice', async () => {
    await broker.api('updateSettings', { upstreamTimeoutSeconds: 1 });
    const client = await connectClient(broker, 'slow', 'connect');
    try {
      const call = client.callTool({ name: 'never_idempotent', arguments: { tag: 'twice' } }).then(
        () => undefined,
        (e: Error) => e,
      );
      const pending = await broker.waitForPending((c) => c.tool === 'never_idempotent');
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      expect((await call)?.message).toMatch(/did not answer 'never_idempotent' within 1 s, even after one retry/);
      const [entry] = await broker.logWhen({ tool: 'never_idempotent' }, (l) => l.some((e) => e.status === 'timeout'));
      expect(entry).toMatchObject({ decision: 'allow', status: 'timeout' });
      expect(entry!.attempts?.map((a) => a.status)).toEqual(['timeout', 'timeout']);
    } finally {
      await client.close();
      await broker.api('updateSettings', { upstreamTimeoutSeconds: 300 });
    }
  });

  it('does not retry a non-idempotent tool, or an untrusted server, and returns the timeout', async () => {
    await broker.api('updateSettings', { upstreamTimeoutSeconds: 1 });
    for (const [server, tool] of [
      ['slow', 'slow_write'],
      ['slow-untrusted', 'slow_idempotent'],
    ] as const) {
      const counterFile = join(scratch, `${server}-${tool}-count`);
      const client = await connectClient(broker, server, 'connect');
      try {
        const call = client.callTool({ name: tool, arguments: { counter: counterFile } }).then(
          () => undefined,
          (e: Error) => e,
        );
        const pending = await broker.waitForPending((c) => c.tool === tool && c.server === server);
        await broker.api('decide', pending.id, { kind: 'allow-once' });
        expect((await call)?.message).toMatch(/did not answer .* within 1 s/);
        // The slow tools answer from their second call on: a counter at 1 already makes this one answer.
        const later = join(scratch, `${server}-${tool}-later`);
        writeFileSync(later, '1');
        await laterCallAnswered(broker, client, tool, later);
        expect(readFileSync(later, 'utf8')).toBe('2');
        expect(readFileSync(counterFile, 'utf8')).toBe('1');
      } finally {
        await client.close();
      }
    }
    await broker.api('updateSettings', { upstreamTimeoutSeconds: 300 });
  });

  it('lists every page of tools itself before deciding a call the client never listed', async () => {
    const client = await connectClient(broker, 'paged', 'connect');
    try {
      // page_tool_4 is on the last page; trusted and read-only, so no prompt.
      expect(textOf(await client.callTool({ name: 'page_tool_4', arguments: {} }))).toBe('page_tool_4');
      const first = await client.listTools();
      expect(first.tools.map((t) => t.name)).toEqual(['page_tool_0', 'page_tool_1']);
      expect(first.nextCursor).toBe('2'); // cursors pass through untouched
      const log = await broker.logWhen({ tool: 'page_tool_4' }, (l) => l.length > 0);
      expect(log.at(-1)).toMatchObject({ decision: 'allow', decidedBy: 'policy' });
    } finally {
      await client.close();
    }
  });

  it('times out an unanswered call as denied, and a late decision forwards nothing', async () => {
    await broker.api('updateSettings', { approvalTimeoutSeconds: 1 });
    const counterFile = join(scratch, 'timeout-count');
    const client = await connectClient(broker, 'counter', 'connect');
    try {
      const call = client.callTool({ name: 'bump', arguments: { counter: counterFile } });
      const pending = await broker.waitForPending((c) => c.tool === 'bump');
      expect(pending.expiresAt - pending.createdAt).toBe(1000);
      const result = (await call) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/No one approved this call within 1 s/);
      expect(await broker.api('decide', pending.id, { kind: 'allow-once' })).toEqual({ ok: false, error: 'not-pending' });
      await broker.api('updateSettings', { approvalTimeoutSeconds: 120 }); // the later call waits for a decision too
      await laterCallAnswered(broker, client, 'bump', join(scratch, 'timeout-later'));
      expect(() => readFileSync(counterFile)).toThrow();
      const log = (await broker.api<AuditEntry[]>('queryLog', { tool: 'bump' })).filter((e) => (e.arguments as { counter?: string }).counter === counterFile);
      expect(log.at(-1)).toMatchObject({ decision: 'deny', decidedBy: 'timeout' });
    } finally {
      await client.close();
      await broker.api('updateSettings', { approvalTimeoutSeconds: 120 });
    }
  });

  it('removes a pending call when the client cancels it, and a later decision forwards nothing', async () => {
    const counterFile = join(scratch, 'cancel-count');
    const client = await connectClient(broker, 'counter', 'http');
    try {
      const ctrl = new AbortController();
      const call = client.callTool({ name: 'bump', arguments: { counter: counterFile } }, undefined, { signal: ctrl.signal }).catch((e: Error) => e);
      const pending = await broker.waitForPending((c) => c.tool === 'bump');
      ctrl.abort('changed my mind');
      await call;
      await pollUntil(
        () => broker.api<PendingCall[]>('listPending'),
        (l) => !l.some((c) => c.id === pending.id),
        'the cancelled call to leave the queue',
      );
      expect((await broker.api<PendingCall[]>('listPending')).some((c) => c.id === pending.id)).toBe(false);
      expect(await broker.api('decide', pending.id, { kind: 'allow-once' })).toEqual({ ok: false, error: 'not-pending' });
      await laterCallAnswered(broker, client, 'bump', join(scratch, 'cancel-later'));
      expect(() => readFileSync(counterFile)).toThrow();
    } finally {
      await client.close();
    }
  });

  it('forwards a call at most once when two decisions arrive together', async () => {
    const counterFile = join(scratch, 'double-count');
    const client = await connectClient(broker, 'counter', 'connect');
    try {
      const call = client.callTool({ name: 'bump', arguments: { counter: counterFile } });
      const pending = await broker.waitForPending((c) => c.tool === 'bump');
      const results = await Promise.all([
        broker.api<{ ok: boolean }>('decide', pending.id, { kind: 'allow-once' }),
        broker.api<{ ok: boolean }>('decide', pending.id, { kind: 'allow-once' }),
        broker.api<{ ok: boolean }>('decide', pending.id, { kind: 'deny' }),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      await call;
      await laterCallAnswered(broker, client, 'bump', join(scratch, 'double-later'));
      const winner = results.findIndex((r) => r.ok);
      expect(existsSync(counterFile) ? readFileSync(counterFile, 'utf8') : 'never ran').toBe(winner === 2 ? 'never ran' : '1');
    } finally {
      await client.close();
    }
  });
});
