// The audit export's durable cursor: per destination, the seq and hash of the last entry it took.
// One JSON file in the data dir (written atomically, moved aside when unreadable: store/json-file.ts),
// inside the folder self-protection guards. A cursor lost or moved aside starts that destination over
// from the first entry: duplicates, which a receiver drops by seq and hash, never a loss.
import path from 'node:path';
import { z } from 'zod';
import { JsonFile } from '../store/json-file.js';

export const CURSOR_FILE = 'audit-export-cursor.json';

const positionSchema = z.object({ seq: z.number().int().min(0), hash: z.string().max(64), at: z.string() }).strict();
const fileSchema = z.object({ version: z.literal(1), destinations: z.record(positionSchema) }).strict();
type CursorFile = z.infer<typeof fileSchema>;

export type CursorPosition = z.infer<typeof positionSchema>;

export class ExportCursor {
  private readonly file: JsonFile<CursorFile>;

  constructor(dataDir: string, warn: (text: string) => void) {
    const file = path.join(dataDir, CURSOR_FILE);
    this.file = new JsonFile<CursorFile>({
      path: file,
      schema: fileSchema,
      empty: () => ({ version: 1, destinations: {} }),
      warn,
      lost: (reason, moved) =>
        `The audit export's cursor ${file} could not be read (${reason}); ` +
        `${moved ? `it was moved to ${moved}` : 'it could not be moved aside and is ignored'}. The export starts again from the first entry (a receiver drops duplicates by seq and hash).`,
    });
  }

  /** Where `destination` stands: seq 0 when it never took an entry. */
  get(destination: string): CursorPosition {
    return this.file.read().destinations[destination] ?? { seq: 0, hash: '', at: '' };
  }

  /** Records that `destination` took every entry up to `seq`. Throws when the disk refuses (the export then sends them again). */
  set(destination: string, seq: number, hash: string): void {
    const data = this.file.read();
    this.file.write({ ...data, destinations: { ...data.destinations, [destination]: { seq, hash, at: new Date().toISOString() } } });
  }
}
