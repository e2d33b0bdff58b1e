// The shell's own preferences (not the broker's): desktop.json in the data dir, through the same store
// file kind as the broker's files (store/json-file.ts). The broker's Settings type is shared with the
// browser UI, which has no notifications to turn off, so this lives here.
import path from 'node:path';
import { JsonFile } from '../broker/store/json-file.js';
import { DEFAULT_DESKTOP_SETTINGS, type DesktopSettings } from '../ipc/desktop-api.js';
import { desktopPrefsSchema } from './desktop-schema.js';

type DesktopFile = { notifications?: boolean };

/** Files electron-store wrote carry its `__internal__` record: not ours, dropped on read. */
function migrate(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('it does not hold a JSON object');
  if (!('__internal__' in raw)) return raw;
  const { __internal__: _store, ...rest } = raw as Record<string, unknown>;
  return rest;
}

export class DesktopSettingsStore {
  readonly #file: JsonFile<DesktopFile>;
  readonly #listeners = new Set<(settings: DesktopSettings) => void>();

  /** A file that cannot be read is moved aside (never deleted) and the defaults are used. */
  constructor(dataDir: string, warn: (text: string) => void = () => {}) {
    const file = path.join(path.resolve(dataDir), 'desktop.json');
    this.#file = new JsonFile<DesktopFile>({
      path: file,
      schema: desktopPrefsSchema,
      empty: () => ({}),
      migrate,
      warn,
      lost: (reason, moved) =>
        `Desktop settings ${file} could not be read (${reason}); ${moved ? `moved to ${moved}` : 'it is left where it is'}. Using the defaults.`,
    });
    this.#file.read(); // a bad file is reported at start, not at the first notification
  }

  get(): DesktopSettings {
    return { notifications: this.#file.read().notifications ?? DEFAULT_DESKTOP_SETTINGS.notifications };
  }

  /** Throws when the disk refuses (the file stays as it was). */
  update(patch: Partial<DesktopSettings>): DesktopSettings {
    if (patch.notifications !== undefined) this.#file.write({ ...this.#file.read(), notifications: patch.notifications });
    const now = this.get();
    for (const listener of this.#listeners) listener(now);
    return now;
  }

  /** Returns the unsubscribe function. */
  onChange(listener: (settings: DesktopSettings) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
