// Reads one client config file and says what each of its entries means. A file that cannot be read or
// parsed is reported with the reason (line and column), and nothing ever writes to it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ConfigLocation, Where } from './catalogue.js';
import type { ConfigFormat, RawEntry } from './config-format.js';
import { interpretEntry, type Interpreted } from './entry.js';
import { jsonFormat } from './json-format.js';
import { tomlFormat } from './toml-format.js';
import type { ClientDef } from './catalogue.js';

const MAX_BYTES = 32 * 1024 * 1024;

export interface ScannedEntry extends RawEntry {
  meaning: Interpreted;
}

export interface ScannedFile {
  location: ConfigLocation;
  format: ConfigFormat;
  exists: boolean;
  /** The file itself when the path is a symlink: writes replace that file, not the link. */
  realPath: string;
  text?: string;
  hash?: string;
  mode?: number;
  error?: string;
  entries: ScannedEntry[];
}

export function formatOf(client: ClientDef): ConfigFormat {
  return client.format === 'toml' ? tomlFormat : jsonFormat(client);
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function scanFile(location: ConfigLocation, where: Where): ScannedFile {
  const format = formatOf(location.client);
  const base: ScannedFile = { location, format, exists: false, realPath: location.path, entries: [] };
  let bytes: Buffer;
  try {
    const st = fs.statSync(location.path);
    base.exists = true;
    if (!st.isFile()) return { ...base, error: 'it is not a regular file' };
    if (st.size > MAX_BYTES) return { ...base, error: `it is larger than ${MAX_BYTES / 1024 / 1024} MB` };
    base.realPath = fs.realpathSync(location.path);
    base.mode = st.mode & 0o777;
    bytes = fs.readFileSync(base.realPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return base;
    return { ...base, error: `it could not be read: ${(err as Error).message}` };
  }
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return { ...base, hash: sha256(bytes), error: 'it is not UTF-8 text' };
  const read = format.read(text);
  const scanned = { ...base, text, hash: sha256(bytes) };
  if ('error' in read) return { ...scanned, error: read.error };
  const project = location.project;
  const entries = read.entries.map((entry): ScannedEntry => {
    const folder = entry.project ?? project;
    const meaning = interpretEntry(entry.value, { client: location.client, home: where.home, platform: where.platform, project: folder, defaultCwd: folder });
    return { ...entry, meaning };
  });
  return { ...scanned, entries };
}
