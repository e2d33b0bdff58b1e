// What an exported record holds (audit-export/export-record.ts, syslog-format.ts): RFC 5424 header and
// structured data with ", \ and ] escaped, octet-counted framing, UDP cut on a character boundary, and
// no env, header or secret value in any of it.
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { exportAttributes, exportedEntry } from '../../electron/broker/audit-export/export-record.js';
import { datagram, escapeParamValue, formatSyslog, octetCounted, structuredData } from '../../electron/broker/audit-export/syslog-format.js';

const base: AuditEntry = {
  seq: 42,
  time: '2026-12-04T10:00:00.123Z',
  server: 'notes',
  tool: 'write_notes',
  arguments: { path: '/tmp/x', note: 'a "quoted] \\ value' },
  decision: 'deny',
  decidedBy: 'rule',
  reasons: ['writes a file', 'sends "data"]'],
  durationMs: 12,
  status: 'denied',
  rule: { id: 'r1', text: 'ask notes/*' },
  limits: 'no network',
  client: 'claude-code',
  prev: 'a'.repeat(64),
  hash: 'b'.repeat(64),
};

describe('exported audit records', () => {
  it('escape ", \\ and ] in PARAM-VALUEs (RFC 5424 §6.3.3), and nothing else', () => {
    expect(escapeParamValue('a"b\\c]d[e=f')).toBe('a\\"b\\\\c\\]d[e=f');
    expect(escapeParamValue('line\nbreak')).toBe('line\\u000abreak');
  });

  it('an RFC 5424 message: PRI from facility and decision, version 1, the entry time, app-name, procid, msgid, SD, BOM and the JSON entry', () => {
    const text = formatSyslog(base, { facility: 13, enterpriseId: 32473, hostname: 'host one', procid: 77 });
    const m = /^<(\d+)>1 (\S+) (\S+) countersign (\S+) (\S+) (\[.*\]) \uFEFF(\{.*\})$/.exec(text)!;
    expect(m).not.toBeNull();
    expect(Number(m[1])).toBe(13 * 8 + 4); // deny: warning
    expect(m[2]).toBe(base.time);
    expect(m[3]).toBe('hostone'); // PRINTUSASCII only
    expect(m[4]).toBe('77');
    expect(m[5]).toBe('call');
    expect(JSON.parse(m[7]!)).toMatchObject({ seq: 42, hash: base.hash, arguments: base.arguments });
    const allow = formatSyslog({ ...base, decision: 'allow', kind: 'trust' }, { facility: 4, enterpriseId: 1, procid: 1 });
    expect(allow.startsWith(`<${4 * 8 + 6}>1 `)).toBe(true);
    expect(allow).toContain(' trust [countersign@1 ');
  });

  it('structured data carries seq, hash, prev, decision, actor, server, rule, limits and each reason', () => {
    const sd = structuredData({ ...base, actor: 'cli' }, 32473);
    expect(sd.startsWith('[countersign@32473 ')).toBe(true);
    for (const p of [
      'seq="42"',
      `hash="${base.hash}"`,
      `prev="${base.prev}"`,
      'decision="deny"',
      'decided_by="rule"',
      'actor="cli"',
      'server="notes"',
      'rule="ask notes/*"',
      'rule.id="r1"',
      'limits="no network"',
      'client="claude-code"',
      'gen_ai.tool.name="write_notes"',
    ]) {
      expect(sd).toContain(` ${p}`);
    }
    expect(sd).toContain(' reasons="writes a file" reasons="sends \\"data\\"\\]"');
    // The element closes once: no unescaped ] inside.
    expect(sd.replace(/\\./g, '').indexOf(']')).toBe(sd.replace(/\\./g, '').length - 1);
  });

  it('octet counting counts octets, not characters', () => {
    expect(octetCounted('é').toString()).toBe('2 é');
  });

  it('a datagram is cut to the bound on a UTF-8 character boundary', () => {
    const cut = datagram(`${'a'.repeat(2047)}é`, 2048);
    expect(cut.length).toBe(2047);
    expect(cut.toString('utf8')).toBe('a'.repeat(2047));
    expect(datagram('short', 2048).toString()).toBe('short');
  });

  it('never carries env or header values, or a secret in the arguments; names stay, seq and hash unchanged', () => {
    const entry: AuditEntry = {
      ...base,
      kind: 'server',
      arguments: {
        command: 'node',
        env: { API_TOKEN: 'plain-value-1', HOME: '/home/me' },
        nested: { headers: { Authorization: 'Bearer abcdefghijklmnopqrstuvwx' } },
        password: 'hunter2hunter2',
        text: 'my key is ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      },
      detail: 'token sk-ant-abcdefghijklmnopqrstuvwxyz',
    };
    const out = JSON.stringify([exportedEntry(entry), exportAttributes(entry), formatSyslog(entry, { facility: 13, enterpriseId: 32473 })]);
    for (const secret of [
      'plain-value-1',
      '/home/me',
      'abcdefghijklmnopqrstuvwx',
      'hunter2hunter2',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'sk-ant-abcdefghijklmnopqrstuvwxyz',
    ]) {
      expect(out).not.toContain(secret);
    }
    const shown = exportedEntry(entry).arguments as { env: Record<string, string>; nested: { headers: Record<string, string> } };
    expect(Object.keys(shown.env)).toEqual(['API_TOKEN', 'HOME']);
    expect(Object.keys(shown.nested.headers)).toEqual(['Authorization']);
    expect(exportedEntry(entry)).toMatchObject({ seq: 42, hash: base.hash, prev: base.prev });
  });

  it('the GenAI attributes only on tool calls', () => {
    expect(exportAttributes(base)).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_notes',
      'gen_ai.tool.call.id': 'countersign-42',
    });
    expect(exportAttributes({ ...base, kind: 'trust' })['gen_ai.operation.name']).toBeUndefined();
  });
});
