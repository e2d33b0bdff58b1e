// The streaming log query against the plain read(), on a real log with rotated files: the same entries in
// the same order for every filter and limit, whatever the chunk size, and other work runs meanwhile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogQuery } from '../../shared/api.js';
import { AuditLog, type NewAuditEntry } from '../../electron/broker/audit/audit-log.js';
import { queryFiles } from '../../electron/broker/audit/audit-query.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-audit-query-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function entry(n: number): NewAuditEntry {
  return {
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    server: n % 3 ? 'files' : 'web',
    tool: n % 2 ? 'read_file' : 'write_file',
    arguments: { path: `/tmp/file-${n}.txt`, note: n % 7 === 0 ? 'Needle here' : 'hay', long: 'x'.repeat(n % 50) },
    decision: n % 5 ? 'allow' : 'deny',
    decidedBy: 'person',
    reasons: [],
    durationMs: n,
    status: n % 5 ? 'ok' : 'denied',
  };
}

const files = (dir: string): string[] => {
  const names = fs
    .readdirSync(dir)
    .filter((n) => /^audit-\d{12}\.jsonl$/.test(n))
    .sort();
  return [...names, 'audit.jsonl'].map((n) => path.join(dir, n));
};

describe('AuditLog.query', () => {
  it('finds exactly what read() finds, across rotated files, for every filter, limit and chunk size', async () => {
    const dir = tempDir();
    const { log } = AuditLog.open(dir, { maxBytes: 16 * 1024 });
    for (let n = 1; n <= 400; n += 20) log.appendMany(Array.from({ length: 20 }, (_, i) => entry(n + i)));
    expect(files(dir).length).toBeGreaterThan(3);
    const queries: LogQuery[] = [
      {},
      { limit: 1 },
      { limit: 200 },
      { limit: 0 },
      { server: 'web' },
      { tool: 'write_file', limit: 7 },
      { decision: 'deny' },
      { search: 'needle' },
      { search: 'NEEDLE', limit: 5 },
      { search: 'nothing matches this' },
    ];
    for (const q of queries) {
      const want = log.read(q).map((e) => e.seq);
      expect(
        (await log.query(q)).map((e) => e.seq),
        JSON.stringify(q),
      ).toEqual(want);
      // Chunks shorter than a line, and odd sizes, so lines span chunk boundaries.
      for (const chunkBytes of [37, 1000, 4096]) {
        expect(
          (await queryFiles(files(dir), q, { chunkBytes })).map((e) => e.seq),
          `${JSON.stringify(q)} ${chunkBytes}`,
        ).toEqual(want);
      }
    }
  });

  it('skips a damaged last line, as read() does, and includes entries not yet written by a batch', async () => {
    const dir = tempDir();
    const { log } = AuditLog.open(dir);
    for (let n = 1; n <= 5; n++) log.append(entry(n));
    fs.appendFileSync(log.path, '{"seq":6,"time":"2026-01-01T00:0');
    const queued: NewAuditEntry[] = [];
    log.beforeAccess = () => void (queued.length && log.appendMany(queued.splice(0)));
    queued.push(entry(7));
    const got = await log.query({});
    expect(got.map((e) => e.arguments)).toEqual([1, 2, 3, 4, 5, 7].map((n) => entry(n).arguments));
    expect(got.map((e) => e.seq)).toEqual(log.read({}).map((e) => e.seq));
  });

  it('lets other work run while it searches a large log', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'audit.jsonl');
    // 30,000 entries, written directly: a query does not check the chain.
    const lines: string[] = [];
    for (let n = 1; n <= 30_000; n++) lines.push(JSON.stringify({ seq: n, ...entry(n), prev: 'p', hash: `h${n}` }));
    fs.writeFileSync(file, lines.join('\n') + '\n');
    let turns = 0;
    let running = true;
    const tick = (): void => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const found = await queryFiles([file], { search: 'needle' }, { sliceMs: 1 });
    running = false;
    expect(found).toHaveLength(Math.floor(30_000 / 7));
    expect(found[0]!.seq).toBe(7);
    expect(turns).toBeGreaterThan(3);
  });
});
