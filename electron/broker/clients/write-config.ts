// Replaces a client's config file atomically (temp file, fsync, rename), only if it still holds what the
// plan was made from, never when the person made it (or its folder) read-only, and with the file's own
// permissions. A failed write leaves the old file whole.
import fs from 'node:fs';
import { writeFileAtomicSync } from '../store/atomic-file.js';
import { sha256 } from './detect.js';
import { readOnlyReason } from './file-access.js';

export class StaleFileError extends Error {
  override name = 'StaleFileError';
}

export function replaceConfig(realPath: string, expectedHash: string | undefined, data: string | Uint8Array, mode: number | undefined): void {
  let current: Buffer | undefined;
  try {
    current = fs.readFileSync(realPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if ((current ? sha256(current) : undefined) !== expectedHash) {
    throw new StaleFileError(`${realPath} changed since Countersign read it; nothing was written. Look at the new preview and try again.`);
  }
  const readOnly = readOnlyReason(realPath);
  if (readOnly) throw new Error(`Countersign could not write ${realPath}: ${readOnly}; the file is unchanged.`);
  try {
    writeFileAtomicSync(realPath, data, mode ?? 0o600);
  } catch (err) {
    throw new Error(`Countersign could not write ${realPath} (${(err as Error).message}); the file is unchanged.`, { cause: err });
  }
  // The temp file's mode went through the umask: give the file back exactly its own.
  if (mode !== undefined) fs.chmodSync(realPath, mode);
}
