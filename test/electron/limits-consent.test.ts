// Limits in the desktop app: a page (treated as compromisable) may tighten a server's limits at once,
// but loosening them shows the person a native dialog with the limits before and after, bound to the
// launch they saw; cancelled, nothing changes. A fake only at the Electron boundary (dialog, IPC sender).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/api.js';
import type { LimitsProfile } from '../../shared/limits.js';
import { IPC } from '../../electron/ipc/channels.js';
import { pickLaunch } from '../../electron/broker/core/server-service.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';
import type { ConsentDialogOptions } from '../../electron/main/consent-dialog.js';
import { CONSENT_POLICY, guardConsent } from '../../electron/main/consent-guard.js';
import { registerGatekeeper } from '../../electron/main/gatekeeper.js';
import { approveShown } from '../helpers/consent.js';
import { startInProcess, type InProcess } from '../helpers/in-process.js';
import { FakeIpcMain, senderEvent } from './fakes.js';

const WINDOW = 7;
let world: InProcess;
let scratch: string;
let dialogs: ConsentDialogOptions[];
let answer: { response: number };
let ipc: FakeIpcMain;

async function page<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
  const reply = (await ipc.invoke(IPC.api, senderEvent({ id: WINDOW }), method, args)) as { ok: boolean; value?: T; error?: string };
  if (!reply.ok) throw new Error(reply.error);
  return reply.value as T;
}

const view = async (name: string): Promise<ServerView> => (await world.api.listServers()).find((s) => s.name === name)!;

beforeEach(async () => {
  world = await startInProcess();
  scratch = mkdtempSync(join(tmpdir(), 'cs-limits-consent-'));
  dialogs = [];
  answer = { response: 0 };
  ipc = new FakeIpcMain();
  const guarded = guardConsent(world.as('desktop'), { showDialog: async (o) => (dialogs.push(o), answer), launchHash, pickLaunch });
  registerGatekeeper({ ipcMain: ipc, api: guarded, desktop: {} as never, appWebContentsId: () => WINDOW, onRendererReady: () => undefined });
});

afterEach(async () => {
  await world.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('limits through the desktop consent guard', () => {
  it('is classified: tightening is free, loosening asks', () => {
    expect(CONSENT_POLICY.setLimits).toBe('ask-if');
  });

  it('tightens at once without a dialog; loosening shows the limits and changes nothing when cancelled', async () => {
    const readOnly: LimitsProfile = { network: 'none', filesystem: { read: [scratch], write: [] }, passEnv: [] };
    const writable: LimitsProfile = { network: 'unrestricted', filesystem: { read: [], write: [scratch] }, passEnv: [] };
    await world.as('cli').addServer('x', { command: '/bin/true', limits: writable });
    await approveShown(world.call, 'x');

    await page('setLimits', 'x', readOnly);
    expect(dialogs).toEqual([]);
    expect((await view('x')).launch).toMatchObject({ approved: true, limits: readOnly });

    const shown = (await view('x')).launch.hash;
    await expect(page('setLimits', 'x', writable, shown)).rejects.toThrow(/did not confirm/);
    expect(dialogs.map((d) => d.title)).toEqual(['Loosen a server’s limits']);
    expect(dialogs[0]!.detail).toContain(`Now: no network · read-only ${scratch}`);
    expect(dialogs[0]!.detail).toContain(`Then: writes ${scratch}`);
    expect(dialogs[0]!.detail).toContain(`Limits: writes ${scratch}`);
    expect((await view('x')).launch).toMatchObject({ approved: true, limits: readOnly, hash: shown });

    answer = { response: 1 };
    await page('setLimits', 'x', writable, shown);
    expect((await view('x')).launch).toMatchObject({ approved: true, limits: writable });
    expect((await world.log({ server: 'x' })).map((e) => [e.actor, e.detail])).toEqual(
      expect.arrayContaining([
        ['desktop', `limits tightened, applied at once: no network · read-only ${scratch}`],
        ['desktop', `limits loosened, with consent: writes ${scratch}`],
      ]),
    );
  });

  it('shows the limits in the launch dialogs, and says so when there are none', async () => {
    answer = { response: 1 };
    await page('addServer', 'y', { command: '/bin/true', limits: { network: 'none', filesystem: 'host', passEnv: [] } });
    await page('addServer', 'z', { command: '/bin/true' });
    expect(dialogs[0]!.detail).toContain('Limits: no network');
    expect(dialogs[1]!.detail).toContain('Limits: none (it reaches your files and the network as you do)');
  });
});

describe('running without limits this machine cannot enforce, through the desktop consent guard', () => {
  it('asks in a native dialog that says what it means, bound to the launch shown; requiring them again asks nothing', async () => {
    // A world without a sandbox: the server's limits cannot be enforced, so it would not start.
    await world.close();
    world = await startInProcess({ sandbox: Promise.resolve({ kind: 'none', reason: 'bubblewrap is not installed', fix: 'install bubblewrap' }) });
    const guarded = guardConsent(world.as('desktop'), { showDialog: async (o) => (dialogs.push(o), answer), launchHash, pickLaunch });
    ipc = new FakeIpcMain();
    registerGatekeeper({ ipcMain: ipc, api: guarded, desktop: {} as never, appWebContentsId: () => WINDOW, onRendererReady: () => undefined });
    expect(CONSENT_POLICY.setRunWithoutLimits).toBe('ask-if');
    await world.as('cli').addServer('x', { command: '/bin/true', limits: { network: 'none', filesystem: 'host', passEnv: [] } });
    const shown = (await view('x')).launch.hash;

    await expect(page('setRunWithoutLimits', 'x', true, shown)).rejects.toThrow(/did not confirm/);
    expect(dialogs.map((d) => d.title)).toEqual(['Run a server without its limits']);
    expect(dialogs[0]!.detail).toContain('Its limits cannot be enforced here: bubblewrap is not installed.');
    expect(dialogs[0]!.detail).toContain('sees Countersign’s own files');
    expect(dialogs[0]!.detail).toContain(`Launch hash: ${shown}`);
    expect((await view('x')).limits?.unenforced).toMatchObject({ runsWithoutLimits: false });
    // What the page claims it showed must be what is there.
    answer = { response: 1 };
    await expect(page('setRunWithoutLimits', 'x', true, 'e'.repeat(64))).rejects.toThrow(/changed after it was shown/);

    await page('setRunWithoutLimits', 'x', true, shown);
    expect((await view('x')).limits?.unenforced).toMatchObject({ runsWithoutLimits: true });
    dialogs = [];
    await page('setRunWithoutLimits', 'x', false);
    expect(dialogs).toEqual([]);
    expect((await view('x')).limits?.unenforced).toMatchObject({ runsWithoutLimits: false });
    expect((await world.log({ server: 'x' })).filter((e) => e.kind === 'launch').map((e) => e.actor)).toEqual(expect.arrayContaining(['desktop']));
  });
});
