// Hostile sizes and shapes through the real ways in: a 10 MB base64 write_file is queued, shown,
// approved and written; 10,000-deep arguments are refused with a clear, logged reason.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, PendingCall, ServerView } from '../../shared/api.js';
import { MAX_ARGUMENT_DEPTH } from '../../electron/broker/checks/argument-checks.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { CLI, EVERYTHING_SERVER, FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';
import { deepJson, RawConnect, rawHttpSession, rawPost } from '../helpers/raw-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe('hostile arguments', () => {
  let broker: TestBroker;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cs-hostile-'));
    const dataDir = makeDataDir();
    configure(
      dataDir,
      {
        fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] },
        everything: { command: NODE, args: [EVERYTHING_SERVER] },
        imposter: { command: NODE, args: [FIXTURE, 'names'], env: { FIXTURE_SERVER_NAME: 'fs' } },
      },
      ['everything'],
    );
    broker = await startServe(dataDir);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
    removeDir(scratch);
  });

  it.each<Via>(['connect', 'http'])(
    'queues, shows and writes a 10 MB base64 write_file approved via %s',
    async (via) => {
      const target = join(scratch, `big-${via}.b64`);
      const content = randomBytes(7_500_000).toString('base64'); // 10,000,000 characters
      const client = await connectClient(broker, 'fs', via);
      try {
        const call = client.callTool({ name: 'write_file', arguments: { path: target, content } }, undefined, { timeout: 120_000 });
        const pending = await broker.waitForPending((c) => c.tool === 'write_file' && (c.arguments as { path?: string }).path === target, 60_000);
        expect((pending.arguments as { content: string }).content).toBe(content);
        const blob = pending.findings.find((f) => f.code === 'base64-blob');
        expect(blob?.message).toContain('10000000-character base64 blob');
        expect(blob!.excerpt.length).toBeLessThan(400);
        expect(await broker.api('decide', pending.id, { kind: 'allow-once' })).toMatchObject({ ok: true });
        const result = await call;
        expect((result as ToolResult).isError).toBeFalsy();
        expect(readFileSync(target, 'utf8')).toBe(content);
        const logged = await broker.logWhen(
          { tool: 'write_file' },
          (l) => l.some((e) => (e.arguments as { path?: string }).path === target && e.status === 'ok'),
          30_000,
        );
        expect(logged.find((e) => (e.arguments as { path?: string }).path === target)).toMatchObject({ decision: 'allow', decidedBy: 'person', status: 'ok' });
      } finally {
        await client.close();
      }
    },
    180_000,
  );

  const deepCall = (id: number | string, target: string) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":"write_file","arguments":{"path":${JSON.stringify(target)},"content":"x","extra":${deepJson(10_000)}}}}`;

  const refusedEntries = async () =>
    (await broker.api<AuditEntry[]>('queryLog', { tool: 'write_file' })).filter((e) => e.reasons.includes('arguments-too-deep'));

  const expectRefusedAndLogged = async (answer: Record<string, unknown>, target: string, before: number) => {
    const result = answer.result as ToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`nest deeper than ${MAX_ARGUMENT_DEPTH} levels`);
    expect(existsSync(target)).toBe(false);
    await broker.logWhen({ tool: 'write_file' }, (l) => l.filter((e) => e.reasons.includes('arguments-too-deep')).length > before);
    const entries = await refusedEntries();
    expect(entries).toHaveLength(before + 1);
    const entry = [...entries].sort((a, b) => b.seq - a.seq)[0];
    expect(entry).toMatchObject({ server: 'fs', decision: 'deny', decidedBy: 'policy', status: 'denied' });
    expect(entry!.detail).toContain(`deeper than ${MAX_ARGUMENT_DEPTH}`);
    expect(JSON.stringify(entry!.arguments)).toContain('not recorded');
    expect(await broker.api<PendingCall[]>('listPending')).toEqual([]);
  };

  it('refuses 10,000-deep arguments on connect with a logged reason, and the session goes on', async () => {
    const target = join(scratch, 'deep-connect.txt');
    const raw = new RawConnect(broker.dataDir, 'fs');
    try {
      await raw.handshake();
      const before = (await refusedEntries()).length;
      raw.write(`${deepCall(7, target)}\n`);
      await expectRefusedAndLogged(await raw.next((m) => m.id === 7), target, before);
      raw.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' })}\n`);
      expect((await raw.next((m) => m.id === 8)).result).toMatchObject({ tools: expect.arrayContaining([expect.objectContaining({ name: 'write_file' })]) });
    } finally {
      await raw.close();
    }
  }, 60_000);

  it('refuses 10,000-deep arguments over HTTP with a logged reason', async () => {
    const target = join(scratch, 'deep-http.txt');
    const session = await rawHttpSession(broker, 'fs');
    const before = (await refusedEntries()).length;
    const answer = await rawPost(broker, 'fs', deepCall(9, target), session);
    expect(answer.status).toBe(200);
    await expectRefusedAndLogged(answer.json[0] as Record<string, unknown>, target, before);
  }, 60_000);

  it.each<Via>(['connect', 'http'])(
    'asks for a trusted read-only call whose arguments break its inputSchema, via %s, and logs why',
    async (via) => {
      const client = await connectClient(broker, 'everything', via);
      try {
        // A valid call runs on its own (and in connect earns a lease); the broken one right after still asks.
        expect(textOf(await client.callTool({ name: 'echo', arguments: { message: `fine ${via}` } }))).toContain(`fine ${via}`);
        const call = client.callTool({ name: 'echo', arguments: { message: 42, sidenote: `psst ${via}` } });
        const pending = await broker.waitForPending((c) => c.server === 'everything' && (c.arguments as { sidenote?: string }).sidenote === `psst ${via}`);
        expect(pending.reasons.map((r) => r.code)).toContain('schema-violation');
        const finding = pending.findings.find((f) => f.code === 'schema-violation');
        expect(finding?.message).toContain("'message' should be string");
        // Undeclared: a violation where the schema forbids extras, else a finding of its own.
        expect(pending.findings.some((f) => (f.code === 'schema-violation' || f.code === 'undeclared-argument') && f.message.includes("'sidenote'"))).toBe(
          true,
        );
        await broker.api('decide', pending.id, { kind: 'deny', reason: 'schema' });
        expect(((await call) as ToolResult).isError).toBe(true);
        const mine = (e: AuditEntry) => (e.arguments as { sidenote?: string }).sidenote === `psst ${via}`;
        const entry = (await broker.logWhen({ tool: 'echo' }, (l) => l.some(mine))).find(mine);
        expect(entry).toMatchObject({ decision: 'deny', decidedBy: 'person' });
        expect(entry!.reasons).toContain('schema-violation');
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it.each<Via>(['connect', 'http'])(
    'lists look-alike and over-long tool names with findings via %s, never a failed tools/list',
    async (via) => {
      const fs = await connectClient(broker, 'fs', via);
      await fs.listTools(); // the broker now knows fs's read_file
      await fs.close();
      const client = await connectClient(broker, 'imposter', via);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['re\u0430d_file', 'n'.repeat(10_000)]);
        const view = (await broker.api<ServerView[]>('listServers')).find((v) => v.name === 'imposter')!;
        const findingsOf = (name: string) => view.tools.find((t) => t.definition.name === name)?.findings ?? [];
        expect(findingsOf('re\u0430d_file').find((f) => f.code === 'confusable-name')?.message).toContain('fs/read_file');
        expect(findingsOf('n'.repeat(10_000)).find((f) => f.code === 'name-format')?.message).toContain('10000 characters long');
        expect(view.findings?.find((f) => f.code === 'server-identity')?.message).toContain("the name of another configured server ('fs')");
      } finally {
        await client.close();
      }
    },
    60_000,
  );

  it('escapes C1, bidi and tag characters in `countersign log --json`, and the JSON reads back exactly', async () => {
    const message = `log \u009b2J \u202eevil \u{e0041}\u{e0042} ${Date.now()}`;
    const client = await connectClient(broker, 'everything', 'http');
    try {
      await client.callTool({ name: 'echo', arguments: { message } });
    } finally {
      await client.close();
    }
    await broker.logWhen({ tool: 'echo' }, (l) => l.some((e) => (e.arguments as { message?: string }).message === message));
    const out = execFileSync(NODE, [CLI, 'log', '--json', '--data-dir', broker.dataDir], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
    expect(out).not.toMatch(/[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u{e0000}-\u{e007f}]/u);
    const entries = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    expect(entries.some((e) => (e.arguments as { message?: string }).message === message)).toBe(true);
  }, 60_000);

  it("answers every malformed line on connect's stdin with a JSON-RPC error, forwards none, and goes on", async () => {
    const target = join(scratch, 'utf8.txt');
    const raw = new RawConnect(broker.dataDir, 'fs');
    try {
      await raw.handshake();
      const head = Buffer.from(
        `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"write_file","arguments":{"path":${JSON.stringify(target)},"content":"`,
      );
      raw.write(Buffer.concat([head, Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('"}}}\n')]));
      raw.write('{"jsonrpc":"2.0","id":null,"method":"tools/list"}\n');
      raw.write('[{"jsonrpc":"2.0","id":22,"method":"ping"}]\n');
      raw.write('{"jsonrpc":"2.0", "method": nope\n');
      raw.write(`${JSON.stringify({ jsonrpc: '2.0', id: 23, method: 'ping' })}\n`);
      await raw.next((m) => m.id === 23);
      const errors = raw.messages.filter(
        (m): m is { id: unknown; error: { code: number; message: string } } => typeof m === 'object' && m !== null && 'error' in m,
      );
      expect(errors.find((e) => e.id === 21)?.error).toMatchObject({ code: -32700, message: expect.stringContaining('not valid UTF-8') });
      const nullIds = errors.filter((e) => e.id === null).map((e) => e.error);
      expect(nullIds).toEqual([
        expect.objectContaining({ code: -32600, message: expect.stringContaining('id must be a string or a number') }),
        expect.objectContaining({ code: -32600, message: expect.stringContaining('batches are not supported') }),
        expect.objectContaining({ code: -32700 }),
      ]);
      // Every answer is one JSON object with jsonrpc 2.0; nothing malformed reached the server.
      expect(raw.messages.every((m) => typeof m === 'object' && m !== null && (m as { jsonrpc?: string }).jsonrpc === '2.0')).toBe(true);
      expect(existsSync(target)).toBe(false);
      expect(await broker.api<PendingCall[]>('listPending')).toEqual([]);
    } finally {
      await raw.close();
    }
  }, 60_000);
});
