// The core promise, through both ways in: what runs, what asks, and that a denied call never reaches the server.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, PendingCall } from '../../shared/api.js';
import { collectEvents, configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, FIXTURE, MEMORY_SERVER, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe.each<Via>(['connect', 'http'])('relay via %s', (via) => {
  let broker: TestBroker;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cs-scratch-'));
    const dataDir = makeDataDir();
    configure(
      dataDir,
      {
        everything: { command: NODE, args: [EVERYTHING_SERVER] },
        'everything-untrusted': { command: NODE, args: [EVERYTHING_SERVER] },
        fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] },
        liar: { command: NODE, args: [FIXTURE, 'liar'] },
        memory: { command: NODE, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') } },
      },
      ['everything', 'memory'],
    );
    broker = await startServe(dataDir, ['--progress-interval-ms', '100']);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
    removeDir(scratch);
  });

  it("runs a trusted server's read-only call without a prompt and logs it with its arguments", async () => {
    const client = await connectClient(broker, 'everything', via);
    try {
      const result = await client.callTool({ name: 'echo', arguments: { message: `hello ${via}` } });
      expect(textOf(result)).toContain(`hello ${via}`);
      expect(await broker.api<PendingCall[]>('listPending')).toEqual([]);
      const mine = (e: AuditEntry): boolean => (e.arguments as { message?: string }).message === `hello ${via}`;
      const entry = (await broker.logWhen({ tool: 'echo' }, (l) => l.some(mine))).find(mine);
      expect(entry).toMatchObject({ server: 'everything', decision: 'allow', decidedBy: 'policy', status: 'ok' });
      expect(entry!.reasons).toContain('trusted-read-only');
    } finally {
      await client.close();
    }
  });

  it('asks for a tool an untrusted server labels read-only, and denying it leaves the file', async () => {
    const victim = join(scratch, `victim-${via}.txt`);
    writeFileSync(victim, 'keep me');
    const client = await connectClient(broker, 'liar', via);
    try {
      const call = client.callTool({ name: 'tidy_notes', arguments: { path: victim } });
      const pending = await broker.waitForPending((c) => c.server === 'liar');
      expect(pending.serverTrusted).toBe(false);
      expect(pending.reasons.map((r) => r.code)).toEqual(expect.arrayContaining(['untrusted-server', 'unverified-claims']));
      expect(pending.hints.readOnlyHint).toBe(true); // the claim is shown, not honoured
      expect(await broker.api('decide', pending.id, { kind: 'deny', reason: 'not today' })).toMatchObject({ ok: true, forwarded: false });
      const result = (await call) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/denied this call: not today/);
      expect(readFileSync(victim, 'utf8')).toBe('keep me');
    } finally {
      await client.close();
    }
  });

  it('runs an approved call on the real server', async () => {
    const victim = join(scratch, `approved-${via}.txt`);
    writeFileSync(victim, 'bye');
    const client = await connectClient(broker, 'liar', via);
    try {
      const call = client.callTool({ name: 'tidy_notes', arguments: { path: victim } });
      const pending = await broker.waitForPending((c) => c.server === 'liar');
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      expect(textOf(await call)).toContain('deleted');
      expect(existsSync(victim)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('a denied write_file leaves the disk untouched and the client sees why', async () => {
    const target = join(scratch, `notes-${via}.txt`);
    writeFileSync(target, 'original\n');
    const client = await connectClient(broker, 'fs', via);
    const live = await collectEvents(broker);
    try {
      const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'overwritten\n' } });
      const pending = await broker.waitForPending((c) => c.server === 'fs' && c.tool === 'write_file');
      expect(pending.arguments).toEqual({ path: target, content: 'overwritten\n' });
      expect(pending.preview).toBe(true);
      expect(pending.reasons.map((r) => r.code)).toContain('destructive');
      await broker.api('decide', pending.id, { kind: 'deny' });
      const result = (await call) as ToolResult;
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/denied this call/);
      expect(readFileSync(target, 'utf8')).toBe('original\n');
      const log = await broker.api<AuditEntry[]>('queryLog', { tool: 'write_file', decision: 'deny' });
      expect(log.some((e) => e.decidedBy === 'person' && e.status === 'denied')).toBe(true);
      // The UI hears about it live, without polling.
      expect(live.events).toContainEqual({ type: 'pending-added', call: pending });
      expect(live.events).toContainEqual({ type: 'pending-removed', id: pending.id, why: 'denied' });
      expect(live.events.some((e) => e.type === 'log-appended' && e.entry.tool === 'write_file')).toBe(true);
    } finally {
      live.stop();
      await client.close();
    }
  });

  it('"allow for this session" and "always allow" on a trusted server stop the asking', async () => {
    const client = await connectClient(broker, 'memory', via);
    try {
      const entity = (n: string) => ({ entities: [{ name: `${via}-${n}`, entityType: 'test', observations: ['x'] }] });
      const first = client.callTool({ name: 'create_entities', arguments: entity('a') });
      const p1 = await broker.waitForPending((c) => c.server === 'memory' && c.tool === 'create_entities');
      await broker.api('decide', p1.id, { kind: 'allow-session' });
      await first;
      await client.callTool({ name: 'create_entities', arguments: entity('b') }); // no prompt this time

      const rel = client.callTool({ name: 'create_relations', arguments: { relations: [{ from: `${via}-a`, to: `${via}-b`, relationType: 'knows' }] } });
      const p2 = await broker.waitForPending((c) => c.server === 'memory' && c.tool === 'create_relations');
      await broker.api('decide', p2.id, { kind: 'always-allow' });
      await rel;
      const rules = await broker.api<Array<{ server: string; tool: string }>>('listRules');
      expect(rules).toEqual(expect.arrayContaining([expect.objectContaining({ server: 'memory', tool: 'create_relations' })]));
    } finally {
      await client.close();
    }
    // A new session: the session grant is gone, the saved rule stays.
    const again = await connectClient(broker, 'memory', via);
    try {
      await again.callTool({ name: 'create_relations', arguments: { relations: [{ from: `${via}-b`, to: `${via}-a`, relationType: 'knows' }] } });
      const log = await broker.logWhen({ tool: 'create_relations' }, (l) => l.at(-1)?.decidedBy === 'rule');
      expect(log.at(-1)).toMatchObject({ decidedBy: 'rule', status: 'ok' });
      const pendingCreate = again.callTool({ name: 'create_entities', arguments: { entities: [{ name: `${via}-c`, entityType: 't', observations: [] }] } });
      const p3 = await broker.waitForPending((c) => c.server === 'memory' && c.tool === 'create_entities');
      await broker.api('decide', p3.id, { kind: 'deny' });
      expect(((await pendingCreate) as ToolResult).isError).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('passes sampling requests from the server to the client and back', async () => {
    // The untrusted twin: server-everything lists its sampling tool only to clients that can sample.
    const client = await connectClient(broker, 'everything-untrusted', via, {
      sampling: () => ({ model: 'test-model', role: 'assistant', content: { type: 'text', text: `sampled via ${via}` } }),
    });
    try {
      const call = client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 10 } });
      const pending = await broker.waitForPending((c) => c.tool === 'trigger-sampling-request');
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      expect(textOf(await call)).toContain(`sampled via ${via}`);
      // Surfaced: the server's request is its own log entry, on the call it belongs to, with its text.
      const log = await broker.logWhen({ server: 'everything-untrusted' }, (l) => l.some((e) => e.kind === 'server-request'));
      expect(log.filter((e) => e.kind === 'server-request').at(-1)).toMatchObject({
        tool: 'trigger-sampling-request',
        arguments: { method: 'sampling/createMessage' },
      });
      expect(log.filter((e) => e.kind === 'server-request').at(-1)?.detail).toMatch(/asked the client's model to write a reply \(sampling\)/);
    } finally {
      await client.close();
    }
  });

  it("sends progress while a call waits, and relays the server's own progress", async () => {
    const client = await connectClient(broker, 'everything-untrusted', via);
    try {
      const seen: string[] = [];
      const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } }, undefined, {
        onprogress: (p) => seen.push(String(p.message ?? `step ${p.progress}/${p.total}`)),
        resetTimeoutOnProgress: true,
      });
      const pending = await broker.waitForPending((c) => c.tool === 'trigger-long-running-operation');
      await new Promise((r) => setTimeout(r, 350));
      expect(seen.some((m) => m.includes('Waiting for approval'))).toBe(true);
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      await call;
      expect(seen.some((m) => !m.includes('Waiting for approval'))).toBe(true);
    } finally {
      await client.close();
    }
  });
});
