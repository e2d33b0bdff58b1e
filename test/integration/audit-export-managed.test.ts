// The audit export's destination from the organization's managed policy: it outranks the person's
// settings, restrictions.auditExportRequired shows in the status and refuses every change by the person
// (with the organization's reason), and a managed file that breaks does not stop the export.
// The managed file sits where the ownership rule accepts it: a root-owned 0755 folder, not under /tmp.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { pollUntil } from '../helpers/patience.js';

const REASON = 'Security keeps every agent decision for a year (policy SEC-12).';

describe.skipIf(process.platform === 'win32' || process.getuid?.() !== 0)('audit export named by the managed policy', () => {
  let folder: string;
  let policyFile: string;
  let receiver: OtlpReceiver;
  let other: OtlpReceiver;
  let world: InProcess | undefined;

  const writePolicy = (body: unknown) => {
    writeFileSync(policyFile, typeof body === 'string' ? body : JSON.stringify(body), { mode: 0o644 });
  };

  beforeEach(async () => {
    folder = `/var/lib/countersign-test-${randomBytes(6).toString('hex')}`;
    mkdirSync(folder, { mode: 0o755 });
    chmodSync(folder, 0o755);
    policyFile = join(folder, 'managed-policy.json');
    receiver = await startOtlpReceiver();
    other = await startOtlpReceiver();
  });
  afterEach(async () => {
    await world?.close();
    world = undefined;
    await receiver.close();
    await other.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('required: the status says so with the reason, the person can neither turn it off nor point it elsewhere, and every entry goes there', async () => {
    writePolicy({ version: 1, auditExport: { otlp: { endpoint: receiver.url } }, restrictions: { auditExportRequired: { reason: REASON } } });
    world = await startInProcess({ managedPolicyPath: policyFile });
    const status = await world.api.getStatus();
    expect(status.auditExport).toMatchObject({
      source: 'managed',
      required: { reason: REASON },
      sinks: [{ kind: 'otlp', target: `http/protobuf http://127.0.0.1:${receiver.port}/v1/logs` }],
    });
    for (const patch of [{ auditExport: null }, { auditExport: { otlp: { endpoint: other.url, protocol: 'http/json' as const } } }]) {
      await expect(world.api.updateSettings(patch)).rejects.toThrow(
        /required by your organization \(Security keeps every agent decision for a year \(policy SEC-12\)\.\)\. It cannot be turned off or pointed elsewhere/,
      );
    }
    // The CLI's and the desktop's surfaces take the same path.
    await expect(world.as('cli').updateSettings({ auditExport: null })).rejects.toThrow(/required by your organization/);
    expect((await world.api.getSettings()).auditExport).toBeUndefined();
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { trusted: true });
    const client = await world.connect('notes');
    await client.callTool({ name: 'read_notes', arguments: {} });
    const last = (await world.log()).at(-1)!.seq;
    await pollUntil(
      () => receiver.seqs(),
      (s) => s.at(-1) === last,
      "every entry at the organization's collector",
    );
    expect(other.records).toHaveLength(0);
  });

  it("managed without the restriction: it still outranks the person's destination, and a change here is refused as useless", async () => {
    writePolicy({ version: 1, auditExport: { otlp: { endpoint: receiver.url, protocol: 'http/json' } } });
    world = await startInProcess({ managedPolicyPath: policyFile });
    await expect(world.api.updateSettings({ auditExport: { otlp: { endpoint: other.url, protocol: 'http/json' } } })).rejects.toThrow(
      /managed by your organization/,
    );
    expect((await world.api.getStatus()).auditExport).toMatchObject({ source: 'managed' });
    expect((await world.api.getStatus()).auditExport?.required).toBeUndefined();
  });

  it("with no managed destination the person's settings count; a managed policy deployed later takes over; one that breaks does not stop the export", async () => {
    world = await startInProcess({ managedPolicyPath: policyFile });
    await world.api.updateSettings({ auditExport: { otlp: { endpoint: other.url, protocol: 'http/protobuf' } } });
    expect((await world.api.getStatus()).auditExport).toMatchObject({ source: 'person' });
    await pollUntil(
      () => other.seqs(),
      (s) => s.length > 0,
      "the person's collector",
    );
    writePolicy({ version: 1, auditExport: { otlp: { endpoint: receiver.url } }, restrictions: { auditExportRequired: { reason: REASON } } });
    world.broker.auditExport.refresh();
    await pollUntil(
      () => world!.api.getStatus(),
      (s) => s.auditExport?.source === 'managed',
      'the managed destination',
    );
    writePolicy('{ not json');
    world.broker.auditExport.refresh();
    await world.api.updateSettings({ theme: 'dark' });
    const last = (await world.log()).at(-1)!.seq;
    await pollUntil(
      () => receiver.seqs(),
      (s) => s.at(-1) === last,
      'the export to go on while the managed file is broken',
    );
    expect((await world.api.getStatus()).auditExport).toMatchObject({ source: 'managed', required: { reason: REASON } });
  });
});
