import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureDataDir, reportsSocketPath, resolveDataDir, socketPath } from '../../electron/broker/store/data-dir.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-datadir-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('resolveDataDir', () => {
  const home = '/home/ada';

  it('prefers --data-dir, then COUNTERSIGN_HOME, then the OS folder', () => {
    const env = { COUNTERSIGN_HOME: '/srv/cs-env', XDG_CONFIG_HOME: '/xdg' };
    expect(resolveDataDir({ flag: '/srv/cs-flag', env, platform: 'linux', home })).toBe('/srv/cs-flag');
    expect(resolveDataDir({ env, platform: 'linux', home })).toBe('/srv/cs-env');
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/xdg' }, platform: 'linux', home })).toBe('/xdg/Countersign');
  });

  it('makes a relative flag absolute against the working directory', () => {
    expect(resolveDataDir({ flag: 'rel/dir', env: {}, platform: 'linux', home })).toBe(path.resolve('rel/dir'));
  });

  it('ignores empty values', () => {
    expect(resolveDataDir({ flag: '', env: { COUNTERSIGN_HOME: '' }, platform: 'linux', home })).toBe('/home/ada/.config/Countersign');
  });

  it('matches Electron userData on Linux, including a relative XDG_CONFIG_HOME being ignored', () => {
    expect(resolveDataDir({ env: {}, platform: 'linux', home })).toBe('/home/ada/.config/Countersign');
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: 'relative' }, platform: 'linux', home })).toBe('/home/ada/.config/Countersign');
  });

  it('matches Electron userData on macOS and Windows', () => {
    expect(resolveDataDir({ env: {}, platform: 'darwin', home: '/Users/ada' })).toBe('/Users/ada/Library/Application Support/Countersign');
    expect(resolveDataDir({ env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ada' })).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\Countersign',
    );
    expect(resolveDataDir({ env: {}, platform: 'win32', home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Roaming\\Countersign');
  });
});

describe('ensureDataDir', () => {
  it('creates nested folders readable only by the user', () => {
    const dir = path.join(tempDir(), 'a', 'b');
    ensureDataDir(dir);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    if (process.platform !== 'win32') expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    ensureDataDir(dir); // idempotent
  });

  it('leaves the mode of an existing folder alone', () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    ensureDataDir(dir);
    if (process.platform !== 'win32') expect(fs.statSync(dir).mode & 0o777).toBe(0o755);
  });
});

describe('socketPath', () => {
  it('puts the socket in the data dir when the path is short enough', () => {
    expect(socketPath('/home/ada/.config/Countersign', 'linux')).toBe('/home/ada/.config/Countersign/broker.sock');
  });

  it('puts the report socket next to it, and its fallback apart from the broker socket', () => {
    expect(path.dirname(reportsSocketPath('/home/ada/.config/Countersign', 'linux'))).toBe('/home/ada/.config/Countersign');
    expect(path.basename(reportsSocketPath('/home/ada/.config/Countersign', 'linux'))).toBe('reports.sock');
    const long = '/home/ada/' + 'x'.repeat(100);
    expect(reportsSocketPath(long, 'linux')).toMatch(/-reports\.sock$/);
    expect(reportsSocketPath(long, 'linux')).not.toBe(socketPath(long, 'linux'));
  });

  it('falls back to a per-user, per-dir socket in the temp folder for long paths', () => {
    const long = '/home/ada/' + 'x'.repeat(100);
    const p = socketPath(long, 'linux');
    const uid = process.getuid?.() ?? 0;
    expect(p).toMatch(new RegExp(`^${escape(os.tmpdir())}/countersign-${uid}-[0-9a-f]{16}\\.sock$`));
    expect(socketPath(long, 'linux')).toBe(p);
    expect(socketPath(long + 'y', 'linux')).not.toBe(p);
  });

  it.skipIf(process.platform === 'win32')('gives a fallback path that can actually be bound', async () => {
    const dir = path.join(tempDir(), 'd'.repeat(120));
    const p = socketPath(dir);
    expect(p.startsWith(dir)).toBe(false);
    const server = net.createServer();
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(p, resolve));
      expect(fs.statSync(p).isSocket()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(p, { force: true });
    }
  });

  it('uses a named pipe on Windows, the same for any spelling of the folder', () => {
    const a = socketPath('C:\\Users\\Ada\\AppData\\Roaming\\Countersign', 'win32');
    expect(a).toMatch(/^\\\\\.\\pipe\\countersign-[0-9a-f]{16}$/);
    expect(socketPath('c:\\users\\ada\\appdata\\roaming\\countersign\\', 'win32')).toBe(a);
    expect(socketPath('C:\\Other', 'win32')).not.toBe(a);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
