// One broker per data dir: two would fork the audit chain and fight over the socket.
import fs from 'node:fs';
import path from 'node:path';
import { ensureDataDir } from './data-dir.js';
import { writeFileAtomicSync } from './atomic-file.js';
import { stillRuns } from './process-identity.js';

export class InstanceLockError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`Another Countersign broker is already running for ${dataDir} (pid ${pid}). ` + 'Stop it first, or use --data-dir for a separate one.');
    this.name = 'InstanceLockError';
  }
}

export interface InstanceLock {
  readonly path: string;
  release(): void;
}

interface LockContent {
  pid: number;
  startedAt: string;
}

export function acquireInstanceLock(dataDir: string): InstanceLock {
  ensureDataDir(dataDir);
  const lockPath = path.join(dataDir, 'broker.lock');
  const mine: LockContent = { pid: process.pid, startedAt: new Date().toISOString() };
  const text = JSON.stringify(mine);

  if (!createExclusive(lockPath, text)) {
    const holder = readHolderPatiently(lockPath);
    if (holder && holds(holder)) throw new InstanceLockError(dataDir, holder.pid);
    // Stale (crash) or garbage: replace it whole, so no reader ever sees a half-written lock.
    writeFileAtomicSync(lockPath, text);
  }
  // Another broker may have taken over the same stale lock at the same moment: the last rename wins.
  const now = readHolder(lockPath);
  if (!now || !sameHolder(now, mine)) {
    if (now && holds(now)) throw new InstanceLockError(dataDir, now.pid);
    throw new Error(`Could not take the broker lock ${lockPath}: it changed while it was being written.`);
  }

  let released = false;
  return {
    path: lockPath,
    release() {
      if (released) return;
      released = true;
      const holder = readHolder(lockPath);
      // Never remove a lock that a later broker has taken over.
      if (holder && sameHolder(holder, mine)) fs.rmSync(lockPath, { force: true });
    },
  };
}

/** O_EXCL create; false when the file already exists. */
function createExclusive(file: string, text: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function readHolder(file: string): LockContent | undefined {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, startedAt } = value as Record<string, unknown>;
    // pid 0 or negative would make process.kill signal a whole process group.
    if (!Number.isInteger(pid) || (pid as number) <= 0 || typeof startedAt !== 'string') return undefined;
    return { pid: pid as number, startedAt };
  } catch {
    return undefined;
  }
}

/** An unreadable lock may be one a starting broker has created but not yet written: look twice. */
function readHolderPatiently(file: string): LockContent | undefined {
  const first = readHolder(file);
  if (first) return first;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  return readHolder(file);
}

function sameHolder(a: LockContent, b: LockContent): boolean {
  return a.pid === b.pid && a.startedAt === b.startedAt;
}

/**
 * The lock's writer still runs. A live pid is not enough: after a crash (or a reboot) the pid may
 * belong to an unrelated process by now, which started after the lock was written (process-identity.ts).
 */
function holds(holder: LockContent): boolean {
  return stillRuns(holder.pid, Date.parse(holder.startedAt));
}
