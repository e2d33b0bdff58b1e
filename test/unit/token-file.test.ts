import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateToken, tokensEqual } from '../../electron/broker/store/token-file.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-token-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const posix = process.platform !== 'win32';
const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('loadOrCreateToken', () => {
  it('creates a 32-byte base64url token only the user can read, and returns it again', () => {
    const dir = tempDir();
    const token = loadOrCreateToken(dir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const file = path.join(dir, 'mcp-token');
    expect(fs.readFileSync(file, 'utf8')).toBe(token);
    if (posix) expect(mode(file)).toBe(0o600);
    expect(loadOrCreateToken(dir)).toBe(token);
    expect(fs.readdirSync(dir)).toEqual(['mcp-token']); // no temp file left behind
  });

  it('keeps an independent token under another file name', () => {
    const dir = tempDir();
    const a = loadOrCreateToken(dir);
    const b = loadOrCreateToken(dir, 'http-token');
    expect(b).not.toBe(a);
    expect(fs.readFileSync(path.join(dir, 'http-token'), 'utf8')).toBe(b);
  });

  it.skipIf(!posix)('narrows a token file that others can read to 0600, keeping the token', () => {
    const dir = tempDir();
    const token = loadOrCreateToken(dir);
    const file = path.join(dir, 'mcp-token');
    fs.chmodSync(file, 0o644);
    expect(loadOrCreateToken(dir)).toBe(token);
    expect(mode(file)).toBe(0o600);
  });

  it('accepts a token with a trailing newline from a hand edit', () => {
    const dir = tempDir();
    const token = 'A'.repeat(42) + 'b';
    fs.writeFileSync(path.join(dir, 'mcp-token'), `${token}\n`, { mode: 0o600 });
    expect(loadOrCreateToken(dir)).toBe(token);
  });

  it.each([
    ['garbled', 'not a token at all'],
    ['empty', ''],
    ['too short', 'A'.repeat(42)],
  ])('moves a %s file aside and makes a new token', (_what, content) => {
    const dir = tempDir();
    const file = path.join(dir, 'mcp-token');
    fs.writeFileSync(file, content);
    const token = loadOrCreateToken(dir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const aside = fs.readdirSync(dir).filter((n) => n.startsWith('mcp-token.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe(content);
    expect(fs.readFileSync(file, 'utf8')).toBe(token);
    if (posix) expect(mode(file)).toBe(0o600);
  });

  it('never overwrites an earlier file moved aside', () => {
    const dir = tempDir();
    const file = path.join(dir, 'mcp-token');
    fs.writeFileSync(file, 'first');
    loadOrCreateToken(dir);
    fs.writeFileSync(file, 'second');
    loadOrCreateToken(dir);
    const contents = fs
      .readdirSync(dir)
      .filter((n) => n.startsWith('mcp-token.corrupt-'))
      .map((n) => fs.readFileSync(path.join(dir, n), 'utf8'))
      .sort();
    expect(contents).toEqual(['first', 'second']);
  });
});

describe('tokensEqual', () => {
  it('is true only for identical strings, whatever the lengths', () => {
    const token = 'q'.repeat(43);
    expect(tokensEqual(token, 'q'.repeat(43))).toBe(true);
    expect(tokensEqual(token, 'q'.repeat(42) + 'r')).toBe(false);
    expect(tokensEqual(token, 'q'.repeat(42))).toBe(false);
    expect(tokensEqual(token, '')).toBe(false);
    expect(tokensEqual('', '')).toBe(true);
  });
});
