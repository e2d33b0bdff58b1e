// CPU time a process has used, in microseconds, from /proc/<pid>/schedstat (Linux, nanosecond
// precision). Undefined elsewhere, or once the process is gone: the report then leaves CPU out.
import { readdirSync, readFileSync } from 'node:fs';

export function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Adds up the CPU a set of processes uses while `fn` runs. */
export class CpuMeter {
  private total = 0;
  private ok = true;

  async measure<T>(pids: Array<number | undefined>, fn: () => Promise<T>): Promise<T> {
    const before = pids.map(cpuMicros);
    const value = await fn();
    const after = pids.map(cpuMicros);
    for (let i = 0; i < pids.length; i++) {
      const a = before[i];
      const b = after[i];
      if (a === undefined || b === undefined) this.ok = false;
      else this.total += b - a;
    }
    return value;
  }

  /** Microseconds per call, or undefined when it could not be measured. */
  perCall(calls: number): number | undefined {
    return this.ok && calls > 0 ? this.total / calls : undefined;
  }
}

/**
 * CPU a process has used over all its threads (µs): `main` is its first thread (for Node, the JavaScript
 * thread), the rest V8's and libuv's helpers (optimizing compiler, GC, file system). Undefined as cpuMicros.
 */
export function threadCpuMicros(pid: number | undefined): { all: number; main: number } | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    let all = 0;
    let main = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const us = taskMicros(pid, tid);
      all += us;
      if (Number(tid) === pid) main = us;
    }
    return { all, main };
  } catch {
    return undefined;
  }
}

function taskMicros(pid: number, tid: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1000 || 0;
  } catch {
    return 0; // the thread ended between the listing and the read
  }
}
