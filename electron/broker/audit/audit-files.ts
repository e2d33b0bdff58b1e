// Reading one file of the audit log: its text, its entries, its last entry (from the end, without
// reading the whole file). A file that is not there reads as empty; other errors are thrown.
import fs from 'node:fs';
import type { AuditEntry } from '../../../shared/api.js';
import { parseEntries, parseEntry } from './audit-entry.js';

const TAIL_CHUNK = 64 * 1024;

export function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

export function entriesOf(file: string): AuditEntry[] {
  return parseEntries(readText(file));
}

export function firstEntryOf(file: string): AuditEntry | undefined {
  return entriesOf(file)[0];
}

export function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The last valid entry, reading only as much of the end of the file as it takes. */
export function lastEntryOf(file: string): { entry?: AuditEntry; damaged: boolean; endsWithNewline: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { damaged: false, endsWithNewline: true };
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return { damaged: false, endsWithNewline: true };
    for (let window = Math.min(size, TAIL_CHUNK); ; window = Math.min(size, window * 4)) {
      const buf = Buffer.alloc(window);
      fs.readSync(fd, buf, 0, window, size - window);
      const endsWithNewline = buf[window - 1] === 0x0a;
      const lines = buf.toString('utf8').split('\n');
      if (window < size) lines.shift(); // may start mid-line
      let damaged = false;
      for (const line of lines.reverse()) {
        if (line.trim() === '') continue;
        const entry = parseEntry(line);
        if (entry) return { entry, damaged, endsWithNewline };
        damaged = true;
      }
      if (window === size) return { damaged, endsWithNewline };
    }
  } finally {
    fs.closeSync(fd);
  }
}
