// An error nobody expected: the person gets one line and the path of a file with the whole stack, in
// the data folder's logs (or the temp folder when the data folder cannot be written).
import { appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes the error's stack; returns the file, or undefined when no file could be written. */
export function writeCrashLog(err: unknown, command: string | undefined, dataDir: string | undefined, version: string): string | undefined {
  const stamp = new Date().toISOString();
  // The command's name only: its arguments can hold values (--env TOKEN=…).
  const text =
    `${stamp} countersign ${version} (${process.platform} ${process.arch}, Node ${process.versions.node}), command: ${command ?? '(none)'}\n` +
    `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n\n`;
  const places = [
    ...(dataDir ? [join(dataDir, 'logs', 'cli-errors.log')] : []),
    join(tmpdir(), `countersign-error-${stamp.replace(/[:.]/g, '-')}-${process.pid}.log`),
  ];
  for (const file of places) {
    try {
      mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
      appendFileSync(file, text, { mode: 0o600 });
      return file;
    } catch {
      // read-only or full: the next place
    }
  }
  return undefined;
}
