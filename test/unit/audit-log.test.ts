import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import { hashEntry } from '../../electron/broker/audit/audit-entry.js';
import { AuditLog, type NewAuditEntry } from '../../electron/broker/audit/audit-log.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-audit-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const GENESIS = '0'.repeat(64);

function entry(n: number, over: Partial<NewAuditEntry> = {}): NewAuditEntry {
  return {
    time: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
    server: n % 2 ? 'files' : 'web',
    tool: n % 3 ? 'read_file' : 'write_file',
    arguments: { path: `/tmp/file-${n}.txt`, nested: { z: n, a: [n, 'x'] } },
    decision: n % 4 ? 'allow' : 'deny',
    decidedBy: 'person',
    reasons: ['needs-approval'],
    durationMs: n,
    status: n % 4 ? 'ok' : 'denied',
    ...over,
  };
}

function fill(log: AuditLog, count: number, from = 1): AuditEntry[] {
  return Array.from({ length: count }, (_, i) => log.append(entry(from + i)));
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const rotated = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((n) => /^audit-\d{12}\.jsonl$/.test(n))
    .sort();

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('AuditLog append and verify', () => {
  it('chains entries: seq from 1, prev is the previous hash, hash covers the contents', () => {
    const dir = tempDir();
    const { log, warnings } = AuditLog.open(dir);
    expect(warnings).toEqual([]);
    expect(log.path).toBe(path.join(dir, 'audit.jsonl'));
    const written = fill(log, 5);
    expect(written.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(written[0]!.prev).toBe(GENESIS);
    for (let i = 1; i < written.length; i++) expect(written[i]!.prev).toBe(written[i - 1]!.hash);
    for (const e of written) expect(e.hash).toBe(hashEntry(e));
    expect(new Set(written.map((e) => e.hash)).size).toBe(5);
    expect(lines(log.path)).toHaveLength(5);
    expect(log.read()).toEqual(written);
    expect(log.verify()).toEqual({ ok: true, entries: 5, problems: [] });
  });

  it('hashes a canonical form: key order does not matter, undefined fields are dropped', () => {
    const { log } = AuditLog.open(tempDir());
    const e = log.append({ ...entry(1), detail: undefined, arguments: { b: 1, a: { d: 2, c: 3 } } });
    expect('detail' in e).toBe(false);
    const reordered = { ...Object.fromEntries(Object.entries(e).reverse()), arguments: { a: { c: 3, d: 2 }, b: 1 } };
    expect(Object.keys(reordered)[0]).toBe('hash');
    expect(hashEntry(reordered as AuditEntry)).toBe(e.hash);
    expect(hashEntry({ ...e, arguments: { a: { c: 3, d: 2 }, b: 2 } })).not.toBe(e.hash);
    expect(log.read()).toEqual([e]);
  });

  it('names the line whose contents were edited', () => {
    const { log } = AuditLog.open(tempDir());
    fill(log, 5);
    const text = lines(log.path);
    text[2] = text[2]!.replace('/tmp/file-3.txt', '/tmp/innocent.txt');
    fs.writeFileSync(log.path, text.join('\n') + '\n');
    expect(log.verify()).toEqual({
      ok: false,
      entries: 5,
      problems: ['audit.jsonl line 3: hash does not match its contents'],
    });
  });

  it('detects a deleted line as a seq gap and a broken chain', () => {
    const { log } = AuditLog.open(tempDir());
    fill(log, 5);
    const text = lines(log.path);
    text.splice(2, 1);
    fs.writeFileSync(log.path, text.join('\n') + '\n');
    const result = log.verify();
    expect(result.ok).toBe(false);
    expect(result.entries).toBe(4);
    expect(result.problems).toEqual(['audit.jsonl line 3: seq jumps from 2 to 4', 'audit.jsonl line 3: chain broken: prev of seq 4 does not match seq 2']);
  });

  it('detects a rewritten chain whose first entry was dropped', () => {
    const { log } = AuditLog.open(tempDir());
    fill(log, 3);
    fs.writeFileSync(log.path, lines(log.path).slice(1).join('\n') + '\n');
    expect(log.verify().problems).toEqual(['audit.jsonl line 1: the log starts at seq 2; earlier entries are missing']);
  });

  it('reports lines that are not JSON', () => {
    const { log } = AuditLog.open(tempDir());
    fill(log, 3);
    const text = lines(log.path);
    text.splice(1, 0, '{"seq": 2, trunc');
    fs.writeFileSync(log.path, text.join('\n') + '\n');
    expect(log.verify().problems).toEqual(['audit.jsonl line 2 is not valid JSON']);
  });
});

describe('AuditLog rotation and reopen', () => {
  it('rotates by size into files named by their first seq; chain, verify and read span them', () => {
    const dir = tempDir();
    const maxBytes = 1500;
    const { log } = AuditLog.open(dir, { maxBytes });
    const written = fill(log, 30);
    const names = rotated(dir);
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of [...names, 'audit.jsonl']) {
      const file = path.join(dir, name);
      expect(fs.statSync(file).size).toBeLessThanOrEqual(maxBytes);
      const first = JSON.parse(lines(file)[0]!) as AuditEntry;
      if (name !== 'audit.jsonl') expect(name).toBe(`audit-${String(first.seq).padStart(12, '0')}.jsonl`);
    }
    expect(log.verify()).toEqual({ ok: true, entries: 30, problems: [] });
    expect(log.read()).toEqual(written);
    expect(log.read({ limit: 3 }).map((e) => e.seq)).toEqual([28, 29, 30]);
    expect(log.read({ limit: 0 })).toEqual([]);
  });

  it('reopening continues seq and chain, also straight after a rotation', () => {
    const dir = tempDir();
    fill(AuditLog.open(dir, { maxBytes: 1500 }).log, 12);
    const { log, warnings } = AuditLog.open(dir, { maxBytes: 1500 });
    expect(warnings).toEqual([]);
    const next = log.append(entry(13));
    expect(next.seq).toBe(13);
    expect(next.prev).toBe(log.read({ limit: 2 })[0]!.hash);

    // Current file gone (as right after a rotation): pick up from the last rotated file.
    fs.renameSync(log.path, path.join(dir, `audit-${'9'.repeat(12)}.jsonl`));
    const after = AuditLog.open(dir).log.append(entry(14));
    expect(after.seq).toBe(14);
    expect(after.prev).toBe(next.hash);
    expect(AuditLog.open(dir).log.verify()).toMatchObject({ ok: true, entries: 14 });
  });

  it('a writer notices entries another writer appended and keeps one chain', () => {
    const dir = tempDir();
    const a = AuditLog.open(dir, { maxBytes: 1500 }).log;
    const b = AuditLog.open(dir, { maxBytes: 1500 }).log;
    fill(a, 4);
    fill(b, 4, 5);
    fill(a, 8, 9);
    expect(b.append(entry(17)).seq).toBe(17);
    expect(a.verify()).toMatchObject({ ok: true, entries: 17 });
  });

  it('keeps a line truncated by a crash, warns, and continues from the last valid entry', () => {
    const dir = tempDir();
    const first = AuditLog.open(dir).log;
    const written = fill(first, 3);
    const partial = '{"seq":4,"time":"2025-01-01T00:00:04.000Z","server":"fi';
    fs.appendFileSync(first.path, partial);

    const { log, warnings } = AuditLog.open(dir);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(log.path);
    expect(warnings[0]).toContain('continue the chain from seq 3');
    const next = log.append(entry(4));
    expect(next).toMatchObject({ seq: 4, prev: written[2]!.hash });
    const text = fs.readFileSync(log.path, 'utf8');
    expect(text).toContain(`${partial}\n${JSON.stringify(next)}\n`);
    expect(log.read().map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(log.verify()).toEqual({ ok: false, entries: 4, problems: ['audit.jsonl line 4 is not valid JSON'] });
  });
});

describe('AuditLog read filters', () => {
  it('filters by server, tool, decision and a case-insensitive search, oldest first', () => {
    const { log } = AuditLog.open(tempDir(), { maxBytes: 2000 });
    fill(log, 12);
    log.append(entry(13, { detail: 'Upstream said NO', arguments: { q: 'Hello World' } }));
    const seqs = (q: Parameters<AuditLog['read']>[0]) => log.read(q).map((e) => e.seq);

    expect(seqs({ server: 'files' })).toEqual([1, 3, 5, 7, 9, 11, 13]);
    expect(seqs({ tool: 'write_file' })).toEqual([3, 6, 9, 12]);
    expect(seqs({ decision: 'deny' })).toEqual([4, 8, 12]);
    expect(seqs({ server: 'web', decision: 'deny' })).toEqual([4, 8, 12]);
    expect(seqs({ server: 'files', tool: 'write_file' })).toEqual([3, 9]);
    expect(seqs({ search: 'FILE-1' })).toEqual([1, 10, 11, 12]); // in the arguments
    expect(seqs({ search: 'hello world' })).toEqual([13]);
    expect(seqs({ search: 'said no' })).toEqual([13]); // in detail
    expect(seqs({ search: 'WRITE_' })).toEqual([3, 6, 9, 12]); // in tool
    expect(seqs({ search: 'WEB' })).toEqual([2, 4, 6, 8, 10, 12]); // in server
    expect(seqs({ server: 'files', limit: 2 })).toEqual([11, 13]);
    expect(seqs({ search: 'nothing like this' })).toEqual([]);
  });
});

describe('AuditLog follow', () => {
  it('sees entries another instance appends, once each and in order, across rotations', async () => {
    const dir = tempDir();
    const writer = AuditLog.open(dir, { maxBytes: 1500 }).log;
    fill(writer, 3);
    const reader = AuditLog.open(dir).log;
    const seen: number[] = [];
    const stop = reader.follow((e) => seen.push(e.seq), { fromEnd: true });
    try {
      // Bursts of 9 span two or three rotations between polls, so some entries are only ever
      // in files that were already rotated away when the follower looks.
      for (let n = 4; n <= 40; n++) {
        writer.append(entry(n));
        if (n % 9 === 0) await new Promise((r) => setTimeout(r, 30));
      }
      await waitFor(() => seen.length >= 37);
      await new Promise((r) => setTimeout(r, 300)); // nothing more must arrive
      expect(seen).toEqual(Array.from({ length: 37 }, (_, i) => i + 4));
      expect(rotated(dir).length).toBeGreaterThanOrEqual(3);
    } finally {
      stop();
    }
  });

  it('without fromEnd, delivers the existing history first, and stops when asked', async () => {
    const dir = tempDir();
    const writer = AuditLog.open(dir, { maxBytes: 1500 }).log;
    fill(writer, 15);
    const seen: number[] = [];
    const stop = AuditLog.open(dir).log.follow((e) => seen.push(e.seq));
    try {
      await waitFor(() => seen.length === 15);
      writer.append(entry(16));
      await waitFor(() => seen.length === 16);
      stop();
      writer.append(entry(17));
      await new Promise((r) => setTimeout(r, 400));
      expect(seen).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    } finally {
      stop();
    }
  });

  it('waits for a line that is still being written, and skips what was there before', async () => {
    const dir = tempDir();
    const writer = AuditLog.open(dir).log;
    const e1 = writer.append(entry(1));
    // Simulate a slow writer: half a line before the follower starts, then the rest.
    const body = { seq: 2, ...entry(2), prev: e1.hash };
    const line = JSON.stringify({ ...body, hash: hashEntry(body) });
    fs.appendFileSync(writer.path, line.slice(0, 40));
    const seen: AuditEntry[] = [];
    const stop = AuditLog.open(dir).log.follow((e) => seen.push(e), { fromEnd: true });
    try {
      await new Promise((r) => setTimeout(r, 400));
      expect(seen).toEqual([]);
      fs.appendFileSync(writer.path, line.slice(40) + '\n');
      await waitFor(() => seen.length >= 1);
      await new Promise((r) => setTimeout(r, 300));
      expect(seen.map((e) => e.seq)).toEqual([2]);
    } finally {
      stop();
    }
  });
});
