// Resident memory of a running process from /proc (Linux): now (VmRSS) and its peak so far (VmHWM).
import { readFileSync } from 'node:fs';

export interface Memory {
  rssKb: number;
  peakKb: number;
}

export function processMemory(pid: number | undefined): Memory | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    const mem = { rssKb: field('VmRSS'), peakKb: field('VmHWM') };
    return Number.isFinite(mem.rssKb) && Number.isFinite(mem.peakKb) ? mem : undefined;
  } catch {
    return undefined;
  }
}

export const mb = (kb: number | undefined): string => (kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`);
