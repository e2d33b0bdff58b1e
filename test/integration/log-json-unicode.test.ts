// `countersign log --json` (the real CLI) on a data dir whose audit log holds, in one argument, every
// code point of the classes issue 22 names (generated from the Unicode data): none comes out raw, and
// the JSON still parses to the exact arguments.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { AuditLog } from '../../electron/broker/audit/audit-log.js';
import { runCli } from '../helpers/cli-run.js';
import { hex, namedInvisibleCodePoints } from '../helpers/unicode-invisible.js';

const NAMED = /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Bidi_Control}]$/u;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('countersign log --json', () => {
  it('escapes every invisible, control, bidi and space code point but U+0020, and parses back to the same arguments', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cs-log-unicode-'));
    dirs.push(dataDir);
    const all = namedInvisibleCodePoints();
    const text = all.map((cp) => `a${String.fromCodePoint(cp)}`).join('');
    const args = { text, [`key${String.fromCodePoint(0x202e, 0x200b, 0x3164)}`]: 'x' };
    AuditLog.open(dataDir).log.append({
      time: new Date().toISOString(),
      server: 'fs',
      tool: 'write_file',
      arguments: args,
      decision: 'deny',
      decidedBy: 'person',
      reasons: ['needs-approval'],
      durationMs: 1,
      status: 'denied',
    });

    const { stdout, code } = await runCli(dataDir, 'log', '--json');
    expect(code).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const raw = new Set<number>();
    for (const ch of lines[0]!) if (ch !== ' ' && NAMED.test(ch)) raw.add(ch.codePointAt(0)!);
    expect([...raw].map(hex)).toEqual([]);
    expect((JSON.parse(lines[0]!) as AuditEntry).arguments).toEqual(args);
  });
});
