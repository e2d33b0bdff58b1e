// Audit log queries over 100,000 entries (real hash-chained log, rotated at the default size): the
// streaming query the API uses beside the whole-file read it replaced, in the same run. Reports the time
// to answer and the longest the event loop was held; the target is the longest hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { LogQuery } from '../shared/api.js';
import { AuditLog, type NewAuditEntry } from '../electron/broker/audit/audit-log.js';
import type { BenchCase } from './case.js';
import { machine } from './machine.js';
import { table } from './stats.js';

const ENTRIES = Number(process.env.BENCH_AUDIT_ENTRIES) || 100_000;
const TARGET_BLOCK_MS = 50;

function entry(n: number): NewAuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
    server: n % 3 ? 'files' : 'web',
    tool: n % 2 ? 'read_text_file' : 'write_file',
    arguments: { path: `/home/someone/project/src/file-${n}.ts`, ...(n % 1000 === 0 ? { note: 'needle' } : {}) },
    decision: n % 5 ? 'allow' : 'deny',
    decidedBy: n % 5 ? 'policy' : 'person',
    reasons: ['trusted-read-only'],
    durationMs: n % 40,
    status: n % 5 ? 'ok' : 'denied',
    client: 'bench',
  };
}

async function held<T>(fn: () => T | Promise<T>): Promise<{ value: T; ms: number; blockMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // Let the monitor take its first sample before the work starts.
  await new Promise((r) => setTimeout(r, 5));
  const start = performance.now();
  const value = await fn();
  const ms = performance.now() - start;
  await new Promise((r) => setTimeout(r, 5));
  h.disable();
  return { value, ms, blockMs: Math.max(h.max / 1e6, 0) };
}

export const auditQuery: BenchCase = {
  name: 'audit-query',
  async run(out) {
    const dir = mkdtempSync(join(tmpdir(), 'cs-bench-audit-'));
    try {
      const { log } = AuditLog.open(dir);
      for (let n = 1; n <= ENTRIES; n += 1000) log.appendMany(Array.from({ length: 1000 }, (_, i) => entry(n + i)));
      const queries: Array<[string, LogQuery]> = [
        ['Activity screen (newest 200)', { limit: 200 }],
        ['search, 100 matches in 100k', { search: 'needle' }],
        ['everything (export)', { limit: 100_000 }],
      ];
      out(`Audit log queries over ${ENTRIES.toLocaleString('en')} entries: the streaming query (API) beside the whole-file read it replaced`);
      out(machine());
      out('');
      const rows: string[][] = [];
      let worst = 0;
      for (const [name, q] of queries) {
        const old = await held(() => log.read(q));
        const now = await held(() => log.query(q));
        if (now.value.length !== old.value.length) throw new Error(`${name}: the query found ${now.value.length}, read() ${old.value.length}`);
        worst = Math.max(worst, now.blockMs);
        rows.push([name, String(now.value.length), now.ms.toFixed(0), now.blockMs.toFixed(1), old.ms.toFixed(0), old.blockMs.toFixed(1)]);
      }
      for (const line of table(['query', 'entries', 'query ms', 'longest hold ms', 'read() ms', 'read() hold ms'], rows)) out(line);
      out('');
      out(
        `target: a query never holds the event loop more than ${TARGET_BLOCK_MS} ms: longest ${worst.toFixed(1)} ms ${worst <= TARGET_BLOCK_MS ? 'PASS' : 'MISS'}`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
