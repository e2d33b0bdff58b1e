// The export's reading of the log (audit-export/export-source.ts) over a real log that rotated many
// times: from a cursor, each entry once and in order, across rotated files and the current one,
// stopped and started again mid-file, and entries appended afterwards.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { AuditLog, type NewAuditEntry } from '../../electron/broker/audit/audit-log.js';
import { logSource } from '../../electron/broker/audit-export/export-source.js';
import { pollUntil } from '../helpers/patience.js';

const entry = (i: number): NewAuditEntry => ({
  time: new Date().toISOString(),
  server: 's',
  tool: 't',
  arguments: { i, pad: 'x'.repeat(200) },
  decision: 'allow',
  decidedBy: 'policy',
  reasons: [],
  durationMs: 0,
  status: 'ok',
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the audit export reads the log', () => {
  let dir: string;
  let log: AuditLog;
  const stops: Array<() => void> = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cs-export-src-'));
    log = AuditLog.open(dir, { maxBytes: 2000 }).log;
    for (let i = 1; i <= 100; i++) log.append(entry(i));
  });
  afterEach(() => {
    for (const stop of stops.splice(0)) stop();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('from a cursor: every later entry once, in order, across rotated files and the current one, then new ones', async () => {
    expect(readdirSync(dir).filter((f) => /^audit-\d{12}/.test(f)).length).toBeGreaterThan(10);
    const source = logSource(dir, log.path);
    expect(source.lastSeq()).toBe(100);
    const got: AuditEntry[] = [];
    stops.push(source.start(37, (e) => got.push(e)));
    await pollUntil(
      () => got.length,
      (n) => n >= 63,
      'the backlog',
    );
    for (let i = 101; i <= 120; i++) log.append(entry(i));
    await pollUntil(
      () => got.length,
      (n) => n >= 83,
      'the new entries',
    );
    expect(got.map((e) => e.seq)).toEqual(range(38, 120));
  });

  it('stopped mid-file and started again after the last entry it gave: nothing lost, nothing twice', async () => {
    const source = logSource(dir, log.path);
    const got: number[] = [];
    let stop: () => void = () => undefined;
    const take = (e: AuditEntry) => {
      got.push(e.seq);
      // The pipe pauses the source when its queue is full: here every 7 entries.
      if (got.length % 7 === 0) {
        stop();
        setImmediate(() => {
          stop = source.start(got.at(-1)!, take);
          stops.push(() => stop());
        });
      }
    };
    stop = source.start(0, take);
    stops.push(() => stop());
    await pollUntil(
      () => got.length,
      (n) => n >= 100,
      'every entry',
    );
    expect(got).toEqual(range(1, 100));
  });
});
