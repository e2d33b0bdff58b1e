// `countersign export`: the real CLI (dist) against a running broker. Setting or removing the person's
// destination is consent: without a terminal it needs --yes and the change hash printed; it goes through
// the core (sealed, audited), the export then delivers to it, header values are never printed, and a
// destination the organization's managed policy requires cannot be changed, with its reason.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditExportStatus } from '../../shared/api.js';
import { startBroker } from '../../electron/broker/core/broker-host.js';
import { makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { startRsyslog } from '../helpers/rsyslog.js';
import { pollUntil } from '../helpers/patience.js';
import { ROOT } from '../helpers/paths.js';

const hashIn = (stdout: string): string => /change hash ([0-9a-f]{64})/.exec(stdout)![1]!;
const shown = async (dataDir: string): Promise<AuditExportStatus | null> =>
  JSON.parse((await runCli(dataDir, 'export', '--json')).stdout) as AuditExportStatus | null;

describe('countersign export', () => {
  it('set needs --yes with the printed hash, then the log goes there; headers never printed; unset likewise', { timeout: 120_000 }, async () => {
    const dataDir = makeDataDir();
    const receiver = await startOtlpReceiver();
    const broker = await startServe(dataDir);
    try {
      expect(await shown(dataDir)).toBeNull();
      const set = ['export', 'set', '--otlp', receiver.url, '--protocol', 'http/json', '--header', 'authorization=Bearer s3cret-token'];
      // No terminal, no hash: nothing changes, and the command says what to add.
      const asked = await runCli(dataDir, ...set);
      expect(asked.code).not.toBe(0);
      expect(asked.stderr).toMatch(/no terminal to ask you on.*--yes --hash [0-9a-f]{64}/);
      expect(asked.stdout).toContain(`OTLP http/json http://127.0.0.1:${receiver.port}/v1/logs`);
      expect(asked.stdout).toContain('authorization');
      expect(asked.stdout + asked.stderr).not.toContain('s3cret');
      const hash = hashIn(asked.stdout);
      // --yes alone, or a hash of another change, grants nothing.
      expect((await runCli(dataDir, ...set, '--yes')).stderr).toMatch(/--yes grants only what it names/);
      const other = await runCli(dataDir, 'export', 'set', '--otlp', receiver.url, '--yes', '--hash', hash);
      expect(other.code).not.toBe(0);
      expect(other.stderr).toMatch(/is not what is printed above/);
      expect(await shown(dataDir)).toBeNull();

      const done = await runCli(dataDir, ...set, '--yes', '--hash', hash);
      expect(done.stdout).toContain('Set.');
      expect(done.code).toBe(0);
      const status = await pollUntil(
        () => shown(dataDir),
        (s) => s?.sinks[0]?.state === 'ok' && s.sinks[0].backlog === 0 && s.sinks[0].exportedSeq > 0,
        'the destination took the log',
      );
      expect(status).toMatchObject({ source: 'person', sinks: [{ kind: 'otlp', target: `http/json http://127.0.0.1:${receiver.port}/v1/logs` }] });
      expect(receiver.records[0]?.headers['authorization']).toBe('Bearer s3cret-token');
      const text = await runCli(dataDir, 'export');
      expect(text.stdout).toMatch(/Set by you in Countersign\.\nOTLP http\/json .*: ok\n {2}exported up to #\d+, backlog 0/);
      expect(text.stdout + (await runCli(dataDir, 'export', '--json')).stdout).not.toContain('s3cret');

      // Bad input: a clear error, nothing asked, nothing changed.
      const bad = await runCli(dataDir, 'export', 'set', '--syslog', 'tcp://siem.example');
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/--syslog takes tcp:\/\/host:port/);

      // Unset: consent too (the log would stop leaving the machine).
      const unasked = await runCli(dataDir, 'export', 'unset');
      expect(unasked.code).not.toBe(0);
      expect(unasked.stdout).toContain('Then:             none');
      expect((await shown(dataDir))?.sinks).toHaveLength(1);
      const unset = await runCli(dataDir, 'export', 'unset', '--yes', '--hash', hashIn(unasked.stdout));
      expect(unset.stdout).toContain('Removed.');
      expect(await shown(dataDir)).toBeNull();
      // Both changes are in the audit log, without the header value.
      const log = await runCli(dataDir, 'log', '--json');
      expect(log.stdout).toContain('audit export destination set');
      expect(log.stdout).toContain('audit export turned off');
      expect(log.stdout).not.toContain('s3cret');
    } finally {
      await broker.stop();
      await receiver.close();
      removeDir(dataDir);
    }
  });

  it('a syslog destination over a local socket: set with the hash, delivered to a real rsyslogd', { timeout: 120_000 }, async () => {
    const dataDir = makeDataDir();
    const rsyslog = await startRsyslog();
    const broker = await startServe(dataDir);
    try {
      const set = ['export', 'set', '--syslog', `unix:${rsyslog.socketPath}`];
      const asked = await runCli(dataDir, ...set);
      expect(asked.stdout).toContain(`syslog unix:${rsyslog.socketPath}`);
      expect((await runCli(dataDir, ...set, '--yes', '--hash', hashIn(asked.stdout))).code).toBe(0);
      const status = await pollUntil(
        () => shown(dataDir),
        (s) => s?.sinks[0]?.state === 'ok' && s.sinks[0].backlog === 0 && s.sinks[0].exportedSeq > 0,
        'rsyslogd took the log',
      );
      await pollUntil(
        () => rsyslog.records().length,
        (n) => n >= status!.sinks[0]!.exportedSeq,
        'every entry in rsyslog',
      );
    } finally {
      await broker.stop();
      await rsyslog.close();
      removeDir(dataDir);
    }
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a destination the organization requires: shown with its reason, set and unset refused with it',
    { timeout: 120_000 },
    async () => {
      const reason = 'Security keeps every agent decision for a year (SEC-12).';
      // Where the ownership rule accepts it: a root-owned 0755 folder, not under /tmp.
      const folder = `/var/lib/countersign-test-${randomBytes(6).toString('hex')}`;
      mkdirSync(folder, { mode: 0o755 });
      chmodSync(folder, 0o755);
      const file = join(folder, 'managed-policy.json');
      const dataDir = makeDataDir();
      const receiver = await startOtlpReceiver();
      const policy = { version: 1, auditExport: { otlp: { endpoint: receiver.url } }, restrictions: { auditExportRequired: { reason } } };
      writeFileSync(file, JSON.stringify(policy), { mode: 0o644 });
      const running = await startBroker({ dataDir, port: 0, rendererDir: join(ROOT, 'dist', 'renderer'), managedPolicyPath: file });
      try {
        const text = await runCli(dataDir, 'export');
        expect(text.stdout).toContain(`Managed by your organization: the audit export is required (${reason})`);
        expect(await shown(dataDir)).toMatchObject({ source: 'managed', required: { reason } });
        for (const argv of [
          ['export', 'unset', '--yes', '--hash', '0'.repeat(64)],
          ['export', 'set', '--syslog', 'udp://127.0.0.1:514', '--yes', '--hash', '0'.repeat(64)],
        ]) {
          const r = await runCli(dataDir, ...argv);
          expect(r.code).not.toBe(0);
          expect(r.stdout).toContain(reason);
          expect(r.stderr).toMatch(/your organization decides the audit export/);
        }
        expect(await shown(dataDir)).toMatchObject({ source: 'managed', sinks: [{ target: `http/protobuf http://127.0.0.1:${receiver.port}/v1/logs` }] });
      } finally {
        await running.stop();
        await receiver.close();
        rmSync(folder, { recursive: true, force: true });
        removeDir(dataDir);
      }
    },
  );
});
