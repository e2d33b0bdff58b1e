import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Conf from 'conf';
import { describe, expect, it, vi } from 'vitest';
import { SettingsStore, type BackendOptions } from '../../electron/broker/settings-store.js';
import { DesktopSettingsStore } from '../../electron/main/desktop-settings.js';
import { loadStoreBackend } from '../../electron/main/store-backend.js';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'cs-shell-'));

describe('store backend for the broker', () => {
  it('uses electron-store when it can be imported, wrapped with atomic writes', async () => {
    // electron-store is conf plus Electron defaults: a conf subclass stands in for it.
    const made: BackendOptions[] = [];
    class FakeElectronStore extends Conf {
      constructor(options: BackendOptions) {
        made.push(options);
        super(options as unknown as ConstructorParameters<typeof Conf>[0]);
      }
    }
    const importer = vi.fn(async () => ({ default: FakeElectronStore }));
    const loaded = await loadStoreBackend(importer);
    expect(importer).toHaveBeenCalledWith('electron-store');
    expect(loaded.kind).toBe('electron-store');
    expect(loaded.warning).toBeUndefined();

    const dir = dataDir();
    const { store } = SettingsStore.open({ dataDir: dir, backend: loaded.factory });
    store.addServer('fs', { command: 'node', args: ['x'] });
    expect(made[0]).toMatchObject({ cwd: path.resolve(dir), name: 'settings', configName: 'settings' });
    expect(JSON.parse(readFileSync(path.join(dir, 'settings.json'), 'utf8')).servers.fs).toEqual({ command: 'node', args: ['x'] });
    expect(statSync(path.join(dir, 'settings.json')).mode & 0o777).toBe(0o600);
    // Atomic writes leave no temp files behind.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('falls back to conf (same file) with a warning when electron-store is missing', async () => {
    const loaded = await loadStoreBackend(async () => {
      throw new Error("Cannot find package 'electron-store'");
    });
    expect(loaded.kind).toBe('conf');
    expect(loaded.warning).toMatch(/electron-store is not available/);
    const dir = dataDir();
    const { store } = SettingsStore.open({ dataDir: dir, backend: loaded.factory });
    store.addServer('a', { command: 'x' });
    expect(existsSync(path.join(dir, 'settings.json'))).toBe(true);
  });

  it('refuses a module without a default export', async () => {
    const loaded = await loadStoreBackend(async () => ({ named: 1 }));
    expect(loaded.kind).toBe('conf');
  });
});

describe('desktop settings', () => {
  const factory = async () => (await loadStoreBackend(async () => Promise.reject(new Error('absent')))).factory;

  it('notifications default to on, persist in desktop.json, and tell listeners', async () => {
    const dir = dataDir();
    const store = new DesktopSettingsStore(dir, await factory());
    expect(store.get()).toEqual({ notifications: true });
    const seen = vi.fn();
    store.onChange(seen);
    expect(store.update({ notifications: false })).toEqual({ notifications: false });
    expect(seen).toHaveBeenCalledWith({ notifications: false });
    expect(JSON.parse(readFileSync(path.join(dir, 'desktop.json'), 'utf8')).notifications).toBe(false);
    expect(new DesktopSettingsStore(dir, await factory()).get()).toEqual({ notifications: false });
  });

  it('moves an unreadable file aside and starts from defaults', async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, 'desktop.json'), '{ not json');
    const warn = vi.fn();
    const store = new DesktopSettingsStore(dir, await factory(), warn);
    expect(store.get()).toEqual({ notifications: true });
    expect(warn.mock.calls[0]![0]).toMatch(/could not be read/);
    expect(readdirSync(dir).some((f) => f.startsWith('desktop.json.corrupt-'))).toBe(true);
    store.update({ notifications: false });
    expect(store.get()).toEqual({ notifications: false });
  });

  it('keeps the broker settings file untouched', async () => {
    const dir = dataDir();
    new DesktopSettingsStore(dir, await factory()).update({ notifications: false });
    expect(existsSync(path.join(dir, 'settings.json'))).toBe(false);
  });
});
