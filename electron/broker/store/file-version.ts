// Which version of a file is on disk, cheaply: a stat at most once per interval. Files we read on every
// tool call (settings, trust records, the team policy) change rarely and mostly through our own writes,
// which invalidate at once; another process's edit is seen within the interval.
import fs from 'node:fs';
import { monotonicMs } from '../core/clock.js';

const RECHECK_MS = 50;

export class FileVersion {
  private key?: string;
  private checkedAt = -Infinity;

  constructor(private readonly file: string) {}

  /** A string that changes whenever the file is written, renamed over or removed; undefined when absent. */
  current(): string | undefined {
    const now = monotonicMs();
    if (now - this.checkedAt < RECHECK_MS) return this.key;
    this.checkedAt = now;
    try {
      const st = fs.statSync(this.file, { bigint: true });
      this.key = `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    } catch {
      this.key = undefined;
    }
    return this.key;
  }

  /** After our own write: look again on the next read. */
  invalidate(): void {
    this.checkedAt = -Infinity;
  }
}
