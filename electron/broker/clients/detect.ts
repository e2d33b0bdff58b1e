// Reads one client config file, once, and says what each of its entries means. A file that cannot be
// read or parsed is reported with the reason (line and column), and nothing ever writes to it; one the
// person made read-only is reported with how to allow the write.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { formatKindOf, type ClientDef, type ConfigLocation, type Where } from './catalogue.js';
import type { ConfigDoc, ConfigFormat, RawEntry } from './config-format.js';
import { interpretEntry, type Interpreted } from './entry.js';
import { readOnlyReason } from './file-access.js';
import { jsonFormat } from './json-format.js';
import { tomlFormat } from './toml-format.js';
import { yamlFormat } from './yaml-format.js';

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
  /** Why Countersign will not write it, with the fix. */
  readOnly?: string;
  /** The parsed file, when it parsed. */
  doc?: ConfigDoc;
  entries: ScannedEntry[];
}

export function formatOf(file: string): ConfigFormat {
  const kind = formatKindOf(file);
  return kind === 'toml' ? tomlFormat : kind === 'yaml' ? yamlFormat : jsonFormat;
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function scanFile(location: ConfigLocation, where: Where): ScannedFile {
  const format = formatOf(location.path);
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
  const readOnly = readOnlyReason(base.realPath);
  const opened = format.open(text, location.client.dialect, location.path);
  const scanned = { ...base, text, hash: sha256(bytes), ...(readOnly && { readOnly }) };
  if ('error' in opened) return { ...scanned, error: opened.error };
  const project = location.project;
  const entries = opened.doc.entries.map((entry): ScannedEntry => {
    const folder = entry.project ?? project;
    const meaning = interpretEntry(entry.value, { client: location.client, home: where.home, platform: where.platform, project: folder, defaultCwd: folder });
    return { ...entry, meaning };
  });
  return { ...scanned, doc: opened.doc, entries };
}
