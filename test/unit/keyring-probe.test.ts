// The seal key's vault loads the keyring's native module only where a keyring may answer: each case
// opens the vault in a fresh Node process (a loaded native module never unloads) and reads its memory
// map. The session bus case runs a real dbus-daemon, with no Secret Service on it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyringMayAnswer, vaultId } from '../../electron/broker/store/key-vault.js';
import { NODE, ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const tmp = mkdtempSync(join(tmpdir(), 'cs-keyring-probe-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Opens the vault of a data dir in a fresh process with exactly `env`: where the key went, and whether the native module is mapped. */
async function openIn(env: Record<string, string>): Promise<{ where: string; keyFile?: string; nativeLoaded: boolean }> {
  const script = `
    import { readFileSync } from 'node:fs';
    import { openVault } from ${JSON.stringify(`${ROOT}electron/broker/store/key-vault.ts`)};
    const vault = openVault(${JSON.stringify(join(tmp, 'data'))}, process.env, (w) => process.stderr.write(w));
    vault.load();
    const nativeLoaded = readFileSync('/proc/self/maps', 'utf8').includes('keyring.linux');
    process.stdout.write(JSON.stringify({ where: vault.where, keyFile: vault.keyFile, nativeLoaded }));`;
  const { stdout } = await run(NODE, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
  return JSON.parse(stdout) as { where: string; keyFile?: string; nativeLoaded: boolean };
}

describe('keyringMayAnswer', () => {
  const none = (): boolean => false;
  it('is true on macOS and Windows, where the OS always has a keyring', () => {
    expect(keyringMayAnswer({}, 'darwin', none)).toBe(true);
    expect(keyringMayAnswer({}, 'win32', none)).toBe(true);
  });

  it('on Linux needs a session bus: its address, or the socket in the runtime dir', () => {
    expect(keyringMayAnswer({}, 'linux', none)).toBe(false);
    expect(keyringMayAnswer({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x/bus' }, 'linux', none)).toBe(true);
    expect(keyringMayAnswer({ XDG_RUNTIME_DIR: '/run/user/7' }, 'linux', (f) => f === '/run/user/7/bus')).toBe(true);
    expect(keyringMayAnswer({ XDG_RUNTIME_DIR: '/run/user/7' }, 'linux', none)).toBe(false);
    // A relative runtime dir is not one (D-Bus ignores it too).
    expect(keyringMayAnswer({ XDG_RUNTIME_DIR: 'run' }, 'linux', (f) => f === 'run/bus')).toBe(false);
  });
});

describe('openVault where no keyring can answer', () => {
  it('keeps the key in the key file and never loads the native module', async () => {
    const runtime = mkdtempSync(join(tmp, 'runtime-'));
    const opened = await openIn({ HOME: tmp, XDG_STATE_HOME: join(tmp, 'state'), XDG_RUNTIME_DIR: runtime });
    expect(opened.keyFile).toBe(join(tmp, 'state', 'countersign-keys', `${vaultId(join(tmp, 'data'))}.key.json`));
    expect(opened.nativeLoaded).toBe(false);
  });
});

describe('openVault with a session bus', () => {
  let bus: ChildProcess | undefined;
  let runtime = '';
  let address = '';

  beforeAll(async () => {
    runtime = mkdtempSync(join(tmp, 'bus-'));
    // A real session bus with nothing on it that answers for org.freedesktop.secrets.
    bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:path=${join(runtime, 'bus')}`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    address = await new Promise<string>((resolve, reject) => {
      bus!.once('error', reject);
      bus!.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
      createInterface({ input: bus!.stdout! }).once('line', resolve);
    });
  });
  afterAll(() => void bus?.kill());

  it('asks the keyring (loading the module) when the bus address is set, and falls back to the key file when no Secret Service answers', async () => {
    const opened = await openIn({
      HOME: tmp,
      XDG_STATE_HOME: join(tmp, 'state'),
      XDG_RUNTIME_DIR: mkdtempSync(join(tmp, 'empty-')),
      DBUS_SESSION_BUS_ADDRESS: address,
    });
    expect(opened.nativeLoaded).toBe(true);
    expect(opened.keyFile).toBe(join(tmp, 'state', 'countersign-keys', `${vaultId(join(tmp, 'data'))}.key.json`));
  });

  it('finds the bus by its socket in the runtime dir', async () => {
    const opened = await openIn({ HOME: tmp, XDG_STATE_HOME: join(tmp, 'state'), XDG_RUNTIME_DIR: runtime });
    expect(opened.nativeLoaded).toBe(true);
    expect(opened.where).toContain('key file');
  });
});
