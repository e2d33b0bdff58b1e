import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { autostartEntry, desktopExecQuote, systemLoginItem, xdgAutostart, xdgConfigHome } from '../../electron/main/login-item.js';

describe('start at login', () => {
  it('macOS/Windows: uses the app login item, starting hidden', async () => {
    let settings = { openAtLogin: false };
    const set = vi.fn((s: { openAtLogin: boolean; args?: string[] }) => void (settings = s));
    const item = systemLoginItem({ getLoginItemSettings: () => settings, setLoginItemSettings: set });
    expect(item.get()).toBe(false);
    await item.set(true);
    expect(set).toHaveBeenCalledWith({ openAtLogin: true, args: ['--hidden'] });
    expect(item.get()).toBe(true);
  });

  it('Linux: writes and removes an XDG autostart entry', async () => {
    const config = mkdtempSync(path.join(tmpdir(), 'cs-xdg-'));
    const item = xdgAutostart(config, '/opt/Countersign/countersign');
    expect(item.get()).toBe(false);
    await item.set(true);
    const file = path.join(config, 'autostart', 'countersign.desktop');
    expect(item.get()).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('Exec="/opt/Countersign/countersign" --hidden\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    await item.set(false);
    expect(item.get()).toBe(false);
    await item.set(false);
  });

  it('quotes Exec per the Desktop Entry spec', () => {
    expect(desktopExecQuote('/home/p/My Apps/Countersign.AppImage')).toBe('"/home/p/My Apps/Countersign.AppImage"');
    expect(desktopExecQuote('/a/$HOME/`x`/"q"')).toBe('"/a/\\\\$HOME/\\\\`x\\\\`/\\\\"q\\\\""');
    expect(desktopExecQuote('/a/100%')).toBe('"/a/100%%"');
    expect(() => desktopExecQuote('/a\nExec=evil')).toThrow();
    expect(autostartEntry('/x').split('\n')[0]).toBe('[Desktop Entry]');
  });

  it('XDG_CONFIG_HOME only when absolute', () => {
    expect(xdgConfigHome({ XDG_CONFIG_HOME: '/cfg' }, '/home/p')).toBe('/cfg');
    expect(xdgConfigHome({ XDG_CONFIG_HOME: 'rel' }, '/home/p')).toBe('/home/p/.config');
    expect(xdgConfigHome({}, '/home/p')).toBe('/home/p/.config');
  });
});
