import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InstanceLockError, acquireInstanceLock } from '../../electron/broker/store/instance-lock.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-lock-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const message = (dir: string, pid: number) =>
  `Another Countersign broker is already running for ${dir} (pid ${pid}). Stop it first, or use --data-dir for a separate one.`;

function readLock(dir: string): { pid: number; startedAt: string } {
  return JSON.parse(fs.readFileSync(path.join(dir, 'broker.lock'), 'utf8')) as { pid: number; startedAt: string };
}

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(child.status).toBe(0);
  return child.pid;
}

describe('acquireInstanceLock', () => {
  it('writes our pid and refuses a second broker for the same dir', () => {
    const dir = tempDir();
    const lock = acquireInstanceLock(dir);
    try {
      expect(lock.path).toBe(path.join(dir, 'broker.lock'));
      const held = readLock(dir);
      expect(held.pid).toBe(process.pid);
      expect(Number.isNaN(Date.parse(held.startedAt))).toBe(false);

      expect(() => acquireInstanceLock(dir)).toThrow(InstanceLockError);
      expect(() => acquireInstanceLock(dir)).toThrow(message(dir, process.pid));
      expect(readLock(dir)).toEqual(held); // the failed attempt did not touch the lock
    } finally {
      lock.release();
    }
  });

  it('refuses while another live process holds the lock', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      fs.writeFileSync(path.join(dir, 'broker.lock'), JSON.stringify({ pid: child.pid, startedAt: 'x' }));
      const error = (() => {
        try {
          acquireInstanceLock(dir);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(InstanceLockError);
      expect((error as InstanceLockError).pid).toBe(child.pid);
      expect((error as Error).message).toBe(message(dir, child.pid!));
    } finally {
      child.kill();
    }
  });

  it('takes over a stale lock whose pid is alive but is another process, started after the lock was written', async () => {
    const dir = tempDir();
    // After a crash (or a reboot) the lock's pid now names an unrelated live process.
    const unrelated = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => unrelated.once('spawn', resolve));
      const lockedAt = new Date(Date.now() - 60 * 60 * 1000).toISOString();
      fs.writeFileSync(path.join(dir, 'broker.lock'), JSON.stringify({ pid: unrelated.pid, startedAt: lockedAt }));
      const lock = acquireInstanceLock(dir);
      try {
        expect(readLock(dir).pid).toBe(process.pid);
      } finally {
        lock.release();
      }
      // The same live process, had it been running when the lock was written, still holds it.
      fs.writeFileSync(path.join(dir, 'broker.lock'), JSON.stringify({ pid: unrelated.pid, startedAt: new Date(Date.now() + 5000).toISOString() }));
      expect(() => acquireInstanceLock(dir)).toThrow(message(dir, unrelated.pid!));
    } finally {
      unrelated.kill();
    }
  });

  it('takes over a stale lock left by a process that died', () => {
    const dir = tempDir();
    const pid = deadPid();
    fs.writeFileSync(path.join(dir, 'broker.lock'), JSON.stringify({ pid, startedAt: new Date(0).toISOString() }));
    const lock = acquireInstanceLock(dir);
    try {
      expect(readLock(dir).pid).toBe(process.pid);
      expect(fs.readdirSync(dir)).toEqual(['broker.lock']); // no temp file left behind
    } finally {
      lock.release();
    }
  });

  it.each([
    ['garbage', '{not json'],
    ['an empty file', ''],
    ['pid 0 (which would mean the whole process group)', JSON.stringify({ pid: 0, startedAt: 'x' })],
    ['a negative pid', JSON.stringify({ pid: -1, startedAt: 'x' })],
  ])('takes over a lock file holding %s', (_what, content) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'broker.lock'), content);
    const lock = acquireInstanceLock(dir);
    try {
      expect(readLock(dir).pid).toBe(process.pid);
    } finally {
      lock.release();
    }
  });

  it('release lets a new broker start, and is idempotent', () => {
    const dir = tempDir();
    const first = acquireInstanceLock(dir);
    first.release();
    expect(fs.existsSync(first.path)).toBe(false);
    const second = acquireInstanceLock(dir);
    first.release(); // must not remove the second broker's lock
    expect(readLock(dir).pid).toBe(process.pid);
    expect(() => acquireInstanceLock(dir)).toThrow(InstanceLockError);
    second.release();
    expect(fs.existsSync(second.path)).toBe(false);
  });

  it('release leaves a lock that another broker has taken over', () => {
    const dir = tempDir();
    const lock = acquireInstanceLock(dir);
    const theirs = JSON.stringify({ pid: deadPid(), startedAt: new Date().toISOString() });
    fs.writeFileSync(lock.path, theirs);
    lock.release();
    expect(fs.readFileSync(lock.path, 'utf8')).toBe(theirs);
  });

  it('creates the data dir if needed', () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    const lock = acquireInstanceLock(dir);
    try {
      expect(fs.existsSync(lock.path)).toBe(true);
    } finally {
      lock.release();
    }
  });
});
