// The audit export over OTLP/HTTP, to a real node:http receiver that decodes with the official OTLP
// definitions (test/helpers/otlp-receiver.ts), protobuf and JSON; and its faults: the receiver down for
// a while, a receiver that holds every request open (calls are not slowed), the broker killed with
// SIGKILL mid-export and started again (nothing lost, duplicates only of the same seq and hash).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { SettingsStore } from '../../electron/broker/store/settings-store.js';
import { GrantSeal } from '../../electron/broker/store/grant-seal.js';
import { makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { pollUntil } from '../helpers/patience.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const TOKEN = 'Bearer collector-token-0123456789abcdef';

describe('audit export over OTLP/HTTP', () => {
  let receiver: OtlpReceiver | undefined;
  let world: InProcess | undefined;
  afterEach(async () => {
    await world?.close();
    await receiver?.close();
    world = undefined;
    receiver = undefined;
  });

  async function setUp(protocol: 'http/protobuf' | 'http/json') {
    receiver = await startOtlpReceiver();
    world = await startInProcess();
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { trusted: true });
    await world.api.updateSettings({ auditExport: { otlp: { endpoint: receiver.url, protocol, headers: { authorization: TOKEN } } } });
    return { receiver, world };
  }

  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`${protocol}: every entry arrives as a log record with the GenAI tool attributes and Countersign's own`, async () => {
      const { receiver, world } = await setUp(protocol);
      const client = await world.connect('notes');
      await client.callTool({ name: 'read_notes', arguments: { path: '/tmp/x', text: 'key sk-ant-abcdefghijklmnopqrstuvwxyz' } });
      const log = await world.log();
      const last = log.at(-1)!.seq;
      await pollUntil(
        () => receiver.seqs(),
        (s) => s.at(-1) === last,
        'every entry at the receiver',
      );
      expect(receiver.seqs()).toEqual(range(1, last));
      const call = receiver.records.find((r) => r.attributes['gen_ai.tool.name'] === 'read_notes')!;
      const entry = log.find((e) => e.seq === call.attributes['countersign.seq'])!;
      expect(call.contentType).toContain(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
      expect(call.headers.authorization).toBe(TOKEN);
      expect(call.resource['service.name']).toBe('countersign');
      expect(call.scope).toBe('countersign.audit');
      expect(call.eventName).toBe('countersign.audit');
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_notes',
        'gen_ai.tool.call.id': `countersign-${entry.seq}`,
        'countersign.seq': entry.seq,
        'countersign.hash': entry.hash,
        'countersign.prev': entry.prev,
        'countersign.decision': entry.decision,
        'countersign.decided_by': entry.decidedBy,
        'countersign.server': 'notes',
        'countersign.kind': 'call',
      });
      expect(BigInt(call.timeUnixNano) / 1_000_000n).toBe(BigInt(Date.parse(entry.time)));
      const body = JSON.parse(call.body) as AuditEntry;
      expect(body).toMatchObject({ seq: entry.seq, hash: entry.hash, tool: 'read_notes' });
      // Secrets in arguments are masked; the collector's token is in no record.
      expect(call.body).not.toContain('sk-ant-abcdefghijklmnopqrstuvwxyz');
      for (const r of receiver.records) expect(r.body + JSON.stringify(r.attributes)).not.toContain('collector-token');
      // The settings entry that set the destination hides the header's value, in the log and in the export.
      const set = log.find((e) => e.detail === 'audit export destination set')!;
      expect(JSON.stringify(set)).not.toContain('collector-token');
      expect((await world.api.getSettings()).auditExport?.otlp?.headers).toEqual({ authorization: '••••' });
      expect(JSON.stringify(await world.api.getStatus())).not.toContain('collector-token');
    });
  }

  it('settings.json edited by hand (an agent with a file tool) neither points the export elsewhere nor turns it off', async () => {
    const { receiver, world } = await setUp('http/protobuf');
    const elsewhere = await startOtlpReceiver();
    try {
      const file = join(world.dataDir, 'settings.json');
      const edit = (auditExport: unknown) => {
        const raw = JSON.parse(readFileSync(file, 'utf8')) as { settings: Record<string, unknown> };
        if (auditExport === undefined) delete raw.settings.auditExport;
        else raw.settings.auditExport = auditExport;
        writeFileSync(file, JSON.stringify(raw));
        // What the periodic recheck (every RECHECK_MS) does, now: look at the destination again.
        world.broker.auditExport.refresh();
      };
      edit({ otlp: { endpoint: elsewhere.url, protocol: 'http/json' } });
      const warned = await pollUntil(
        () => world.api.getStatus(),
        (s) => s.warnings.some((w) => /not set in Countersign.*ignored/.test(w)),
        'the hand edit to be noticed',
      );
      expect(warned.auditExport?.sinks[0]?.target).toBe(`http/protobuf http://127.0.0.1:${receiver.port}/v1/logs`);
      expect((await world.api.getSettings()).auditExport?.otlp?.endpoint).toBe(receiver.url);
      edit(undefined);
      await world.api.updateSettings({ theme: 'dark' });
      const last = (await world.log()).at(-1)!.seq;
      await pollUntil(
        () => receiver.seqs(),
        (s) => s.at(-1) === last,
        'the export to go on to the sealed destination',
      );
      expect(elsewhere.records).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('the receiver down for a while (refusing, then its port closed), then back: nothing is lost; the status warns meanwhile', async () => {
    const { receiver, world } = await setUp('http/protobuf');
    const client = await world.connect('notes');
    await pollUntil(
      () => receiver.seqs(),
      (s) => s.length > 0,
      'the first entries',
    );
    receiver.setMode('unavailable');
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'read_notes', arguments: { text: `refused ${i}` } });
    const down = await pollUntil(
      () => world.api.getStatus(),
      (s) => s.auditExport?.sinks[0]?.state === 'down',
      'the export to be reported down',
    );
    expect(down.warnings.some((w) => /audit export .* is failing.*Nothing is lost/.test(w))).toBe(true);
    expect(down.auditExport?.sinks[0]?.backlog).toBeGreaterThan(0);
    await receiver.stop();
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'read_notes', arguments: { text: `closed ${i}` } });
    receiver.setMode('ok');
    await receiver.restart();
    const last = (await world.log()).at(-1)!.seq;
    await pollUntil(
      () => receiver.seqs(),
      (s) => s.at(-1) === last,
      'the entries made while it was down',
    );
    expect(receiver.seqs()).toEqual(range(1, last));
    const back = await pollUntil(
      () => world.api.getStatus(),
      (s) => s.auditExport?.sinks[0]?.state === 'ok',
      'the export to be back',
    );
    expect(back.warnings.some((w) => /audit export/.test(w))).toBe(false);
  });

  it('a receiver that holds every request open: calls still complete (none waits for the export)', async () => {
    const { receiver, world } = await setUp('http/protobuf');
    receiver.setMode('hold');
    const client = await world.connect('notes');
    await pollUntil(
      () => receiver.held,
      (n) => n > 0,
      'the export to be held',
    );
    const results = [];
    for (let i = 0; i < 20; i++) results.push(await client.callTool({ name: 'read_notes', arguments: { text: `call ${i}` } }));
    // Every call answered while the export was held and nothing had been taken.
    expect(results).toHaveLength(20);
    expect(receiver.held).toBeGreaterThan(0);
    expect(receiver.records).toHaveLength(0);
    receiver.setMode('ok');
    receiver.release();
    const last = (await world.log()).at(-1)!.seq;
    await pollUntil(
      () => receiver.seqs(),
      (s) => s.at(-1) === last,
      'the export to catch up',
    );
    expect(receiver.seqs()).toEqual(range(1, last));
  });
});

describe('audit export across a broker killed with SIGKILL mid-export', () => {
  let receiver: OtlpReceiver | undefined;
  let broker: TestBroker | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await broker?.stop();
    await receiver?.close();
    if (dataDir) removeDir(dataDir);
  });

  it('restarted, it sends again from its durable cursor: nothing lost, duplicates only of the same seq and hash', async () => {
    receiver = await startOtlpReceiver();
    dataDir = makeDataDir();
    // As Countersign saves the person's choice: sealed (the copy in effect), and in settings.json.
    const destination = { otlp: { endpoint: receiver.url, protocol: 'http/protobuf' as const } };
    const seal = GrantSeal.open(dataDir, process.env, () => undefined);
    seal.update((g) => void (g.auditExport = destination));
    SettingsStore.open({ dataDir, seal }).store.updateSettings({ auditExport: destination });
    broker = await startServe(dataDir);
    for (let i = 0; i < 5; i++) await broker.api('updateSettings', { theme: i % 2 ? 'dark' : 'light' });
    await pollUntil(
      () => receiver!.seqs(),
      (s) => s.length >= 5,
      'the first entries',
    );
    // Held: a batch is in flight, taken by nobody, when the broker dies.
    receiver.setMode('hold');
    for (let i = 0; i < 5; i++) await broker.api('updateSettings', { theme: i % 2 ? 'dark' : 'light' });
    await pollUntil(
      () => receiver!.held,
      (n) => n > 0,
      'an export in flight',
    );
    const before = await broker.api<AuditEntry[]>('queryLog', {});
    broker.child.kill('SIGKILL');
    await new Promise((r) => broker!.child.once('exit', r));
    receiver.release(); // the killed broker's request is not answered: its records were never taken
    receiver.setMode('ok');
    broker = await startServe(dataDir);
    await broker.api('updateSettings', { theme: 'system' });
    const log = await broker.api<AuditEntry[]>('queryLog', {});
    expect(log.length).toBeGreaterThan(before.length);
    const last = log.at(-1)!.seq;
    await pollUntil(
      () => receiver!.seqs(),
      (s) => s.at(-1) === last,
      'every entry after the restart',
    );
    expect(receiver.seqs()).toEqual(range(1, last));
    // Duplicates, if any, are the same record: a receiver drops them by seq and hash.
    const bySeq = new Map<number, Set<string>>();
    for (const r of receiver.records) {
      const seq = Number(r.attributes['countersign.seq']);
      bySeq.set(seq, (bySeq.get(seq) ?? new Set()).add(String(r.attributes['countersign.hash'])));
    }
    for (const entry of log) expect([...bySeq.get(entry.seq)!]).toEqual([entry.hash]);
  });
});
