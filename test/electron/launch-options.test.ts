import { describe, expect, it } from 'vitest';
import { resolveDataDir } from '../../electron/broker/store/data-dir.js';
import { desktopDataDir, flagValue, startsHidden } from '../../electron/main/launch-options.js';
import { startupErrorMessage } from '../../electron/main/startup-error.js';
import { InstanceLockError } from '../../electron/broker/store/instance-lock.js';

describe('launch options', () => {
  it('reads --name=value and --name value, last one wins', () => {
    expect(flagValue(['electron', 'main.mjs', '--data-dir=/a'], '--data-dir')).toBe('/a');
    expect(flagValue(['x', '--data-dir', '/b'], '--data-dir')).toBe('/b');
    expect(flagValue(['x', '--data-dir=/a', '--data-dir', '/b'], '--data-dir')).toBe('/b');
    expect(flagValue(['x', '--data-dir'], '--data-dir')).toBeUndefined();
    expect(flagValue(['x', '--data-dir', '--hidden'], '--data-dir')).toBeUndefined();
    expect(flagValue(['x', '--data-dir='], '--data-dir')).toBeUndefined();
  });

  it.each(['linux', 'darwin', 'win32'] as const)('the default data dir is the CLI default on %s (Electron userData for "Countersign")', (platform) => {
    const env = { APPDATA: 'C:\\Users\\p\\AppData\\Roaming' };
    expect(desktopDataDir(['electron', 'main.mjs'], env, platform)).toBe(resolveDataDir({ env, platform }));
    expect(desktopDataDir(['electron', 'main.mjs'], env, platform)).toMatch(/Countersign$/);
  });

  it('honours --data-dir and COUNTERSIGN_HOME exactly as the CLI does', () => {
    expect(desktopDataDir(['x', '--data-dir=/tmp/cs'], { COUNTERSIGN_HOME: '/other' }, 'linux')).toBe('/tmp/cs');
    expect(desktopDataDir(['x'], { COUNTERSIGN_HOME: '/other' }, 'linux')).toBe(resolveDataDir({ env: { COUNTERSIGN_HOME: '/other' }, platform: 'linux' }));
  });

  it('starts hidden when launched at login', () => {
    expect(startsHidden(['x', '--hidden'])).toBe(true);
    expect(startsHidden(['x'], true)).toBe(true);
    expect(startsHidden(['x'])).toBe(false);
  });

  it('explains a data dir that another broker holds', () => {
    const msg = startupErrorMessage(new InstanceLockError('/d', 1234), '/d');
    expect(msg.title).toBe('Countersign is already running');
    expect(msg.body).toContain('pid 1234');
    expect(msg.body).toContain('countersign serve');
    expect(startupErrorMessage(new Error('EACCES'), '/d').body).toContain('EACCES');
  });
});
