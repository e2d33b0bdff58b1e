// The shared secret MCP clients present to the broker, kept in a file only this user can read.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDataDir } from './data-dir.js';
import { writeFileAtomicSync } from './atomic-file.js';
import { moveAside } from './move-aside.js';

// 32 bytes in base64url, no padding.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function loadOrCreateToken(dataDir: string, fileName = 'mcp-token'): string {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, fileName);
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) {
    // A trailing newline from a hand edit is harmless.
    const token = text.trim();
    if (TOKEN_PATTERN.test(token)) {
      restrictMode(file);
      return token;
    }
    // Keep the bad file for inspection; a new token only means clients must be set up again.
    moveAside(file);
  }
  return writeNewToken(file);
}

/** Constant time, and comparing digests means the lengths never leak either. */
export function tokensEqual(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

function writeNewToken(file: string): string {
  const token = randomBytes(32).toString('base64url');
  writeFileAtomicSync(file, token);
  // If another process created one at the same moment, the last rename won: use what is on disk.
  const onDisk = fs.readFileSync(file, 'utf8').trim();
  return TOKEN_PATTERN.test(onDisk) ? onDisk : token;
}

function restrictMode(file: string): void {
  if (process.platform === 'win32') return; // POSIX modes mean nothing there.
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
}
