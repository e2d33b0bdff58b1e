// The shell's own settings (not the broker's): desktop.json in the data dir, through the same store
// class the broker uses. The broker's Settings type is shared with the browser UI, which has no
// notifications to turn off, so this lives here.
import fs from 'node:fs';
import path from 'node:path';
import type { BackendFactory, BackendOptions, StoreBackend } from '../broker/settings-store.js';
import { DEFAULT_DESKTOP_SETTINGS, type DesktopSettings } from '../ipc/desktop-api.js';

export function desktopStoreOptions(dataDir: string): BackendOptions {
  return {
    cwd: path.resolve(dataDir),
    configName: 'desktop',
    name: 'desktop',
    projectName: 'countersign',
    projectVersion: '0.1.0',
    schema: { notifications: { type: 'boolean' } },
    rootSchema: { required: [] },
    migrations: {},
    clearInvalidConfig: false,
    accessPropertiesByDotNotation: false,
    configFileMode: 0o600,
  };
}

export class DesktopSettingsStore {
  #backend?: StoreBackend;
  readonly #listeners = new Set<(settings: DesktopSettings) => void>();

  /** A file that cannot be read is moved aside (never deleted) and the defaults are used. */
  constructor(dataDir: string, factory: BackendFactory, warn: (text: string) => void = () => {}) {
    const opts = desktopStoreOptions(dataDir);
    const file = path.join(opts.cwd, `${opts.configName}.json`);
    try {
      this.#backend = factory(opts);
      void this.#backend.store;
    } catch (error) {
      const aside = `${file}.corrupt-${new Date().toISOString().replace(/:/g, '')}`;
      try {
        fs.renameSync(file, aside);
        this.#backend = factory(opts);
        warn(`Desktop settings ${file} could not be read (${(error as Error).message}); moved to ${aside}.`);
      } catch {
        this.#backend = undefined;
        warn(`Desktop settings ${file} could not be read (${(error as Error).message}); using defaults.`);
      }
    }
  }

  get(): DesktopSettings {
    try {
      const stored = this.#backend?.store.notifications;
      return { notifications: typeof stored === 'boolean' ? stored : DEFAULT_DESKTOP_SETTINGS.notifications };
    } catch {
      return { ...DEFAULT_DESKTOP_SETTINGS };
    }
  }

  update(patch: Partial<DesktopSettings>): DesktopSettings {
    if (patch.notifications !== undefined) {
      if (!this.#backend) throw new Error('Desktop settings cannot be saved: the settings file could not be opened.');
      this.#backend.set('notifications', patch.notifications);
    }
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
