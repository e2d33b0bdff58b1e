// The desktop app's own preferences (desktop.json) go through the same store file kind as the broker's
// settings (store/json-file.ts): no electron-store, no conf.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SettingsStore } from '../../electron/broker/store/settings-store.js';
import { DesktopSettingsStore } from '../../electron/main/desktop-settings.js';
import { makeUnwritable } from '../helpers/unwritable.js';

const dirs: string[] = [];
const undo: Array<() => void> = [];
const dataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cs-shell-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const u of undo.splice(0)) u();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('desktop settings', () => {
  it('notifications default to on, persist in desktop.json (0600, no temp file left), and tell listeners', () => {
    const dir = dataDir();
    const store = new DesktopSettingsStore(dir);
    expect(store.get()).toEqual({ notifications: true });
    const seen = vi.fn();
    store.onChange(seen);
    expect(store.update({ notifications: false })).toEqual({ notifications: false });
    expect(seen).toHaveBeenCalledWith({ notifications: false });
    const file = path.join(dir, 'desktop.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ notifications: false });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(new DesktopSettingsStore(dir).get()).toEqual({ notifications: false });
  });

  it('reads a desktop.json electron-store wrote (its __internal__ record included)', () => {
    const dir = dataDir();
    writeFileSync(
      path.join(dir, 'desktop.json'),
      JSON.stringify({ notifications: false, __internal__: { migrations: { version: '0.1.0' } } }, undefined, '\t'),
    );
    const warn = vi.fn();
    const store = new DesktopSettingsStore(dir, warn);
    expect(store.get()).toEqual({ notifications: false });
    expect(warn).not.toHaveBeenCalled();
    store.update({ notifications: true });
    expect(JSON.parse(readFileSync(path.join(dir, 'desktop.json'), 'utf8'))).toEqual({ notifications: true });
  });

  it('moves an unreadable file aside and starts from defaults', () => {
    for (const bad of ['{ not json', '[]', '{"notifications":"yes"}']) {
      const dir = dataDir();
      writeFileSync(path.join(dir, 'desktop.json'), bad);
      const warn = vi.fn();
      const store = new DesktopSettingsStore(dir, warn);
      expect(store.get()).toEqual({ notifications: true });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]![0]).toMatch(/Desktop settings .*desktop\.json could not be read .*moved to .*desktop\.json\.corrupt-/);
      const aside = readdirSync(dir).filter((f) => f.startsWith('desktop.json.corrupt-'));
      expect(aside).toHaveLength(1);
      expect(readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe(bad);
      store.update({ notifications: false });
      expect(store.get()).toEqual({ notifications: false });
    }
  });

  it('a read-only data dir: update says it could not save, nothing changes, no listener told', () => {
    const dir = dataDir();
    const store = new DesktopSettingsStore(dir);
    store.update({ notifications: false });
    const seen = vi.fn();
    store.onChange(seen);
    undo.push(makeUnwritable(dir));
    expect(() => store.update({ notifications: true })).toThrow(/EPERM|EACCES|EROFS/);
    expect(store.get()).toEqual({ notifications: false });
    expect(seen).not.toHaveBeenCalled();
  });

  it('keeps the broker settings file untouched, and the broker keeps desktop.json untouched', () => {
    const dir = dataDir();
    new DesktopSettingsStore(dir).update({ notifications: false });
    expect(existsSync(path.join(dir, 'settings.json'))).toBe(false);
    const before = readFileSync(path.join(dir, 'desktop.json'), 'utf8');
    SettingsStore.open({ dataDir: dir }).store.addServer('a', { command: 'x' });
    expect(readFileSync(path.join(dir, 'desktop.json'), 'utf8')).toBe(before);
    expect(statSync(path.join(dir, 'settings.json')).mode & 0o777).toBe(0o600);
  });
});
