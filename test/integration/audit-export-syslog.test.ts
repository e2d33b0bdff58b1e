// The audit export to a real rsyslogd (test/helpers/rsyslog.ts): every entry arrives as RFC 5424, with
// the fields rsyslog itself parsed (PRI, version, timestamp, hostname, app-name, procid, msgid, the
// countersign@32473 structured data, the entry as MSG), over TCP (octet counting), UDP and a unix
// stream socket, and nothing lost while rsyslog is down. On Linux a missing rsyslogd fails (never skips).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { UDP_MAX_OCTETS } from '../../electron/broker/audit-export/syslog-format.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';
import { pollUntil } from '../helpers/patience.js';
import { sdParams, startRsyslog, type Rsyslog, type RsyslogRecord } from '../helpers/rsyslog.js';

const entryOf = (r: RsyslogRecord): AuditEntry => JSON.parse(r.msg.replace(/^\uFEFF/, '')) as AuditEntry;
const seqsOf = (records: RsyslogRecord[]) => [...new Set(records.map((r) => Number(sdParams(r.sd).params.seq?.[0])))].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(process.platform !== 'linux')('audit export to a real rsyslogd', () => {
  let rsyslog: Rsyslog;
  let world: InProcess;

  beforeEach(async () => {
    rsyslog = await startRsyslog();
    world = await startInProcess();
    await world.serve(
      'notes',
      (s, calls) => {
        recordingTool(s, calls, 'read_notes', { readOnlyHint: true });
        recordingTool(s, calls, 'write_notes', { destructiveHint: true });
      },
      { trusted: true },
    );
  });

  afterEach(async () => {
    await world?.close();
    await rsyslog?.close();
  });

  const lastSeq = async () => (await world.log()).at(-1)!.seq;

  it('over TCP: every entry, calls and changes of state, arrives once with the RFC 5424 fields rsyslog parsed', async () => {
    await world.api.updateSettings({
      auditExport: { syslog: { transport: 'tcp', host: '127.0.0.1', port: rsyslog.tcpPort, facility: 13, enterpriseId: 32473 } },
    });
    const client = await world.connect('notes');
    await client.callTool({ name: 'read_notes', arguments: { path: '/tmp/a "quoted] \\ path' } });
    const denied = client.callTool({ name: 'write_notes', arguments: { content: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' } });
    const pending = await world.waitForPending();
    await world.api.decide(pending.id, { kind: 'deny' });
    await denied.catch(() => undefined);
    const last = await lastSeq();
    await pollUntil(
      () => seqsOf(rsyslog.records()),
      (s) => s.at(-1) === last,
      'rsyslog to have every entry',
    );

    const log = await world.log();
    const records = rsyslog.records();
    expect(seqsOf(records)).toEqual(range(1, last));
    expect(records).toHaveLength(last); // each once
    for (const r of records) {
      const { id, params } = sdParams(r.sd);
      const seq = Number(params.seq![0]);
      const entry = log.find((e) => e.seq === seq)!;
      expect(r.version).toBe('1');
      expect(r.appname).toBe('countersign');
      expect(r.hostname).toBe(os.hostname());
      expect(Number(r.procid)).toBe(process.pid);
      expect(r.msgid).toBe(entry.kind ?? 'call');
      expect(r.input).toBe('imtcp');
      expect(Number(r.pri)).toBe(13 * 8 + (entry.decision === 'deny' ? 4 : 6));
      expect(new Date(r.timestamp).toISOString()).toBe(entry.time);
      expect(id).toBe('countersign@32473');
      expect(params.hash).toEqual([entry.hash]);
      expect(params.prev).toEqual([entry.prev]);
      expect(params.decision).toEqual([entry.decision]);
      expect(params.server).toEqual([entry.server]);
      expect(entryOf(r).seq).toBe(seq);
      expect(entryOf(r).hash).toBe(entry.hash);
    }
    const read = records.find((r) => sdParams(r.sd).params.tool?.[0] === 'read_notes')!;
    // The escaped path came through rsyslog's parser whole (", ] and \ escaped in the SD, JSON in MSG).
    expect(sdParams(read.sd).params['gen_ai.tool.name']).toEqual(['read_notes']);
    expect(sdParams(read.sd).params['gen_ai.operation.name']).toEqual(['execute_tool']);
    expect((entryOf(read).arguments as { path: string }).path).toBe('/tmp/a "quoted] \\ path');
    const deny = records.find((r) => sdParams(r.sd).params.tool?.[0] === 'write_notes' && sdParams(r.sd).params.decision?.[0] === 'deny')!;
    expect(sdParams(deny.sd).params.decided_by).toEqual([log.find((e) => e.seq === Number(sdParams(deny.sd).params.seq![0]))!.decidedBy]);
    expect(sdParams(deny.sd).params.reasons?.length).toBeGreaterThan(0);
    // A secret in the arguments never leaves the machine.
    expect(deny.msg).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(deny.msg).toContain('[masked: a GitHub token');
  });

  it('over UDP, cut to 2048 octets (RFC 5426), and over a unix stream socket', async () => {
    await world.api.updateSettings({
      auditExport: { syslog: { transport: 'udp', host: '127.0.0.1', port: rsyslog.udpPort, facility: 13, enterpriseId: 32473 } },
    });
    const client = await world.connect('notes');
    await client.callTool({ name: 'read_notes', arguments: { content: 'x'.repeat(5000) } });
    let last = await lastSeq();
    await pollUntil(
      () => seqsOf(rsyslog.records()),
      (s) => s.at(-1) === last,
      'rsyslog to have the UDP entries',
    );
    const big = rsyslog.records().find((r) => sdParams(r.sd).params.tool?.[0] === 'read_notes')!;
    expect(big.input).toBe('imudp');
    // Cut, but the header and structured data (seq, hash) are whole.
    expect(Buffer.byteLength(big.msg)).toBeLessThan(UDP_MAX_OCTETS);
    expect(sdParams(big.sd).params.hash?.[0]).toMatch(/^[0-9a-f]{64}$/);

    await world.api.updateSettings({ auditExport: { syslog: { transport: 'unix', path: rsyslog.socketPath, facility: 13, enterpriseId: 32473 } } });
    await client.callTool({ name: 'read_notes', arguments: { text: 'over the socket' } });
    last = await lastSeq();
    await pollUntil(
      () => rsyslog.records().filter((r) => r.input === 'imptcp'),
      (rs) => seqsOf(rs).at(-1) === last,
      'rsyslog to have the unix socket entries',
    );
    // A new destination starts from the first entry (its own cursor): every entry, again, over the socket.
    expect(seqsOf(rsyslog.records().filter((r) => r.input === 'imptcp'))).toEqual(range(1, last));
  });

  it('rsyslog down for a while, then back: nothing is lost, and the status says it was down', async () => {
    await world.api.updateSettings({
      auditExport: { syslog: { transport: 'tcp', host: '127.0.0.1', port: rsyslog.tcpPort, facility: 13, enterpriseId: 32473 } },
    });
    const client = await world.connect('notes');
    await client.callTool({ name: 'read_notes', arguments: { text: 'before' } });
    let last = await lastSeq();
    await pollUntil(
      () => seqsOf(rsyslog.records()),
      (s) => s.at(-1) === last,
      'the first entries',
    );
    await rsyslog.stop();
    for (let i = 0; i < 5; i++) await client.callTool({ name: 'read_notes', arguments: { text: `while down ${i}` } });
    const status = await pollUntil(
      () => world.api.getStatus(),
      (s) => s.auditExport?.sinks[0]?.state !== 'ok',
      'the export to notice',
    );
    expect(status.auditExport?.sinks[0]?.backlog).toBeGreaterThan(0);
    await rsyslog.restart();
    last = await lastSeq();
    await pollUntil(
      () => seqsOf(rsyslog.records()),
      (s) => s.at(-1) === last,
      'the entries made while rsyslog was down',
    );
    expect(seqsOf(rsyslog.records())).toEqual(range(1, last));
    const after = await pollUntil(
      () => world.api.getStatus(),
      (s) => s.auditExport?.sinks[0]?.state === 'ok',
      'the export to be back',
    );
    expect(after.auditExport?.sinks[0]).toMatchObject({ exportedSeq: last, backlog: 0 });
  });
});

/** A CA and a certificate for 127.0.0.1 it signs, made with openssl; and a second CA that signed nothing. */
function makeCerts(dir: string): { ca: string; cert: string; key: string; otherCa: string } {
  const run = (...args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
  };
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=countersign-test-ca');
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other.key', '-out', 'other.pem', '-days', '2', '-subj', '/CN=someone-else');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext');
  return { ca: join(dir, 'ca.pem'), cert: join(dir, 'server.pem'), key: join(dir, 'server.key'), otherCa: join(dir, 'other.pem') };
}

describe.skipIf(process.platform !== 'linux')('audit export to a real rsyslogd over TLS (gtls)', () => {
  it('arrives over TLS when the receiver proves itself with the configured CA; a receiver the CA did not sign gets nothing', async () => {
    const certDir = mkdtempSync(join(tmpdir(), 'cs-certs-'));
    const certs = makeCerts(certDir);
    const rsyslog = await startRsyslog({ tls: certs });
    const world = await startInProcess();
    try {
      const tls = { transport: 'tls' as const, host: '127.0.0.1', port: rsyslog.tlsPort!, facility: 13, enterpriseId: 32473 };
      await world.api.updateSettings({ auditExport: { syslog: { ...tls, ca: certs.otherCa } } });
      await world.api.updateSettings({ theme: 'dark' });
      const refused = await pollUntil(
        () => world.api.getStatus(),
        (st) => (st.auditExport?.sinks[0]?.failures ?? 0) > 0,
        'the TLS check to refuse',
      );
      expect(refused.auditExport?.sinks[0]?.lastError).toMatch(/certificate|self.signed|verify/i);
      expect(rsyslog.records()).toHaveLength(0);
      await world.api.updateSettings({ auditExport: { syslog: { ...tls, ca: certs.ca } } });
      const last = (await world.log()).at(-1)!.seq;
      await pollUntil(
        () => seqsOf(rsyslog.records()),
        (s) => s.at(-1) === last,
        'the entries over TLS',
      );
      expect(seqsOf(rsyslog.records())).toEqual(range(1, last));
      expect(rsyslog.records().every((r) => r.version === '1' && r.appname === 'countersign')).toBe(true);
    } finally {
      await world.close();
      await rsyslog.close();
      rmSync(certDir, { recursive: true, force: true });
    }
  });
});
