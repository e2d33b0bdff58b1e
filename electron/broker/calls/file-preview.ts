// The current content of a file a pending call wants to write (or move, or delete), for the UI's preview. Only paths
// that a pending call names may be read: the UI API is not a general file reader.
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { FilePreview, PendingCall } from '../../../shared/api.js';

const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;

export async function previewFile(path: string, pending: PendingCall[]): Promise<FilePreview> {
  const named = pending.some((c) => containsString(c.arguments, path));
  if (!named) return { exists: false, refused: 'No pending call names this path.' };
  if (!isAbsolute(path)) return { exists: false, refused: 'The path is relative, so Countersign cannot tell which file the server would write.' };
  try {
    const st = await stat(path);
    if (st.isDirectory()) return { exists: true, directory: true, refused: 'The path is a folder.' };
    if (!st.isFile()) return { exists: true, refused: 'The path is not a regular file.' };
    if (st.size > MAX_PREVIEW_BYTES) return { exists: true, size: st.size, tooLarge: true };
    const bytes = await readFile(path);
    if (bytes.subarray(0, 8192).includes(0)) return { exists: true, size: bytes.length, binary: true };
    return { exists: true, size: bytes.length, content: bytes.toString('utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false };
    return { exists: false, refused: (err as Error).message };
  }
}

function containsString(value: unknown, wanted: string, depth = 0): boolean {
  if (typeof value === 'string') return value === wanted;
  if (depth > 32 || !value || typeof value !== 'object') return false;
  return Object.values(value).some((v) => containsString(v, wanted, depth + 1));
}
