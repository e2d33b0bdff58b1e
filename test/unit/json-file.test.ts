// The one way a store file is read and written: schema, migration, atomic write, move-aside.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonFile } from '../../electron/broker/store/json-file.js';
import { makeUnwritable } from '../helpers/unwritable.js';

const schema = z.object({ version: z.literal(2), items: z.array(z.string()) }).strict();
type Data = z.infer<typeof schema>;
const dirs: string[] = [];
const undo: Array<() => void> = [];
afterEach(() => {
  for (const u of undo.splice(0)) u();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(): { file: JsonFile<Data>; dir: string; warnings: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'cs-json-'));
  dirs.push(dir);
  const warnings: string[] = [];
  const file = new JsonFile<Data>({
    path: join(dir, 'things.json'),
    schema,
    empty: () => ({ version: 2, items: [] }),
    // Version 1 kept one item as a string.
    migrate: (raw) =>
      raw && typeof raw === 'object' && (raw as { version?: unknown }).version === 1 ? { version: 2, items: [(raw as { item: string }).item] } : raw,
    lost: (reason, moved) => `lost: ${reason} → ${moved ?? 'kept in place'}`,
    warn: (w) => warnings.push(w),
  });
  return { file, dir, warnings };
}

describe('JsonFile', () => {
  it('reads empty when absent, writes whole files (no temp file left), and migrates an older format', () => {
    const { file, dir } = open();
    expect(file.read()).toEqual({ version: 2, items: [] });
    file.write({ version: 2, items: ['a'] });
    expect(file.read()).toEqual({ version: 2, items: ['a'] });
    expect(readdirSync(dir)).toEqual(['things.json']);
    const again = open();
    writeFileSync(again.file.path, JSON.stringify({ version: 1, item: 'old' }));
    expect(again.file.read()).toEqual({ version: 2, items: ['old'] });
  });

  it('refuses to write what fails its schema, and leaves the file as it was', () => {
    const { file } = open();
    file.write({ version: 2, items: ['a'] });
    expect(() => file.write({ version: 2, items: [3] } as unknown as Data)).toThrow();
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ version: 2, items: ['a'] });
  });

  it('moves an unreadable file aside (never deletes it) and starts empty', () => {
    const { file, dir, warnings } = open();
    writeFileSync(file.path, '{"version": 2, "items": [1]}');
    expect(file.read()).toEqual({ version: 2, items: [] });
    const aside = readdirSync(dir).filter((n) => n.startsWith('things.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0]!), 'utf8')).toBe('{"version": 2, "items": [1]}');
    expect(warnings[0]).toMatch(/^lost: .* → .*things\.json\.corrupt-/);
  });

  it('in a read-only folder an unreadable file is ignored, not thrown, and a write fails cleanly', () => {
    const { file, dir, warnings } = open();
    writeFileSync(file.path, 'not json');
    undo.push(makeUnwritable(dir));
    expect(file.read()).toEqual({ version: 2, items: [] });
    expect(warnings[0]).toMatch(/kept in place$/);
    expect(warnings[0]).toMatch(/^lost: it is not valid JSON: /);
    expect(existsSync(file.path)).toBe(true);
    // The bad file is never written over (its bytes would be lost): refused before the disk is tried.
    expect(() => file.write({ version: 2, items: ['x'] })).toThrow(/could not be moved aside: nothing was saved/);
    expect(readFileSync(file.path, 'utf8')).toBe('not json');
    expect(warnings).toHaveLength(1); // warned once, not on every read
    expect(file.read()).toEqual({ version: 2, items: [] });
    expect(warnings).toHaveLength(1);
  });

  it('a write the disk refuses throws and leaves a good file as it was', () => {
    const { file, dir } = open();
    file.write({ version: 2, items: ['a'] });
    undo.push(makeUnwritable(dir));
    expect(() => file.write({ version: 2, items: ['b'] })).toThrow(/EPERM|EACCES|EROFS/);
    expect(file.read()).toEqual({ version: 2, items: ['a'] });
  });

  it('settle() writes a missing or older-format file in this format, and leaves a current one alone', () => {
    const { file } = open();
    file.settle();
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ version: 2, items: [] });
    writeFileSync(file.path, JSON.stringify({ version: 1, item: 'old' }));
    file.recheck();
    file.settle();
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ version: 2, items: ['old'] });
    const bytes = '{"version":2,"items":["kept","as","written"]}';
    writeFileSync(file.path, bytes);
    file.recheck();
    file.settle();
    expect(readFileSync(file.path, 'utf8')).toBe(bytes);
  });
});
