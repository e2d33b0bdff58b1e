// CPU time a process has used, in microseconds, from /proc/<pid>/task/*/schedstat (Linux, nanosecond
// precision): every thread, not only the main one, so V8's compiler and GC threads and libuv's pool
// count too. Undefined elsewhere, or once the process is gone: the report then leaves CPU out.
import { readdirSync, readFileSync } from 'node:fs';

export function cpuMicros(pid: number | undefined): number | undefined {
  return threadCpuMicros(pid)?.all;
}

/** CPU over all threads (`all`) and of the first thread alone (`main`: for Node, the JavaScript thread). */
export function threadCpuMicros(pid: number | undefined): { all: number; main: number } | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    let all = 0;
    let main = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let ns: number;
      try {
        ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        continue; // A thread that ended between the listing and the read: its time is not counted.
      }
      if (!Number.isFinite(ns)) return undefined;
      all += ns / 1000;
      if (Number(tid) === pid) main = ns / 1000;
    }
    return { all, main };
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
