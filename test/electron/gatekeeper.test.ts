import { describe, expect, it, vi } from 'vitest';
import type { CountersignApi } from '../../shared/api.js';
import { IPC } from '../../electron/ipc/channels.js';
import { REFUSED_SENDER, registerGatekeeper, type DesktopHandlers } from '../../electron/main/gatekeeper.js';
import { FakeApi, FakeIpcMain, pendingCall, senderEvent } from './fakes.js';

const WINDOW_ID = 7;

function setup(opts: { noWindow?: boolean } = {}) {
  const windowId = opts.noWindow ? undefined : WINDOW_ID;
  const ipc = new FakeIpcMain();
  const api = new FakeApi();
  const desktop: DesktopHandlers = {
    openExternal: vi.fn(async () => true),
    getDesktopSettings: vi.fn(async () => ({ notifications: true })),
    updateDesktopSettings: vi.fn(async (patch) => ({ notifications: patch.notifications ?? true })),
    installCommandLineTool: vi.fn(async () => ({ installed: false, message: 'Nothing was written.' })),
  };
  const ready = vi.fn();
  const refused = vi.fn();
  const dispose = registerGatekeeper({
    ipcMain: ipc,
    api: api as unknown as Omit<CountersignApi, 'subscribe'>,
    desktop,
    appWebContentsId: () => windowId,
    onRendererReady: ready,
    onRefused: refused,
  });
  const app = senderEvent({ id: WINDOW_ID });
  return { ipc, api, desktop, ready, refused, dispose, app };
}

describe('gatekeeper: senders', () => {
  it('registers every channel as an invoke handler, and removes them all', () => {
    const { ipc, dispose } = setup();
    expect([...ipc.handlers.keys()].sort()).toEqual([IPC.api, IPC.desktop, IPC.rendererReady].sort());
    dispose();
    expect(ipc.handlers.size).toBe(0);
  });

  it('answers the app window at the app URL', async () => {
    const { ipc, api, app } = setup();
    await expect(ipc.invoke(IPC.api, app, 'getStatus', [])).resolves.toMatchObject({ ok: true, value: { paused: false } });
    expect(api.calls.map((c) => c.method)).toEqual(['getStatus']);
  });

  it.each([
    ['another webContents', senderEvent({ id: 99 })],
    ['another origin', senderEvent({ id: WINDOW_ID, url: 'https://evil.example/' })],
    ['a look-alike app host', senderEvent({ id: WINDOW_ID, url: 'app://countersign.evil/index.html' })],
    ['a file:// page', senderEvent({ id: WINDOW_ID, url: 'file:///tmp/index.html' })],
    ['an iframe inside the window', senderEvent({ id: WINDOW_ID, parent: {} })],
    ['a destroyed frame', senderEvent({ id: WINDOW_ID, frame: null })],
  ])('drops %s before anything reaches the broker', async (_name, event) => {
    const { ipc, api, desktop, ready, refused } = setup();
    await expect(ipc.invoke(IPC.api, event, 'setPaused', [true])).resolves.toEqual({ ok: false, error: REFUSED_SENDER });
    await expect(ipc.invoke(IPC.desktop, event, 'openExternal', ['https://example.com/'])).resolves.toEqual({ ok: false, error: REFUSED_SENDER });
    await expect(ipc.invoke(IPC.desktop, event, 'installCommandLineTool', [])).resolves.toEqual({ ok: false, error: REFUSED_SENDER });
    await expect(ipc.invoke(IPC.rendererReady, event)).resolves.toEqual({ ok: false, error: REFUSED_SENDER });
    expect(api.calls).toEqual([]);
    expect(desktop.openExternal).not.toHaveBeenCalled();
    expect(desktop.installCommandLineTool).not.toHaveBeenCalled();
    expect(ready).not.toHaveBeenCalled();
    expect(refused).toHaveBeenCalledTimes(4);
  });

  it('refuses everyone while there is no app window', async () => {
    const { ipc, api } = setup({ noWindow: true });
    await expect(ipc.invoke(IPC.api, senderEvent({ id: WINDOW_ID }), 'getStatus', [])).resolves.toEqual({ ok: false, error: REFUSED_SENDER });
    expect(api.calls).toEqual([]);
  });
});

describe('gatekeeper: arguments', () => {
  it.each([
    ['an unknown method', 'shutdown', [], /unknown API method "shutdown"/],
    ['subscribe (not an invoke method)', 'subscribe', [], /unknown API method/],
    ['a prototype key', 'constructor', [], /unknown API method/],
    ['a missing argument', 'setPaused', [], /invalid arguments for setPaused/],
    ['a wrong type', 'setPaused', ['yes'], /invalid arguments for setPaused: 0:/],
    ['an extra argument', 'setPaused', [true, 1], /invalid arguments for setPaused/],
    ['args that are not an array', 'setPaused', { 0: true }, /invalid arguments for setPaused/],
    ['an unknown decision kind', 'decide', ['c1', { kind: 'allow-forever' }], /invalid arguments for decide/],
    ['an extra key in a decision', 'decide', ['c1', { kind: 'allow-once', alsoTrust: true }], /invalid arguments for decide/],
    ['an empty call id', 'decide', ['', { kind: 'allow-once' }], /invalid arguments for decide: 0:/],
    ['a bad server name', 'addServer', ['../etc', { command: 'x' }], /invalid arguments for addServer: 0:/],
    ['a file: URL server', 'addServer', ['s', { url: 'file:///etc/passwd' }], /invalid arguments for addServer/],
  ])('rejects %s with the schema message', async (_name, method, args, message) => {
    const { ipc, api, app } = setup();
    const reply = (await ipc.invoke(IPC.api, app, method, args)) as { ok: boolean; error: string };
    expect(reply.ok).toBe(false);
    expect(reply.error).toMatch(message);
    expect(api.calls).toEqual([]);
  });

  it('passes the parsed tuple to the broker', async () => {
    const { ipc, api, app } = setup();
    api.pending = [pendingCall('c1')];
    await expect(ipc.invoke(IPC.api, app, 'decide', ['c1', { kind: 'deny', reason: 'no' }])).resolves.toEqual({
      ok: true,
      value: { ok: true, forwarded: true },
    });
    expect(api.calls).toEqual([{ method: 'decide', args: ['c1', { kind: 'deny', reason: 'no' }] }]);
  });

  it('passes a not-pending refusal through unchanged, as a refusal', async () => {
    const { ipc, api, app } = setup();
    api.pending = [pendingCall('c1')];
    await ipc.invoke(IPC.api, app, 'decide', ['c1', { kind: 'allow-once' }]);
    // Decided already, then an unknown id: the broker refuses both and nothing is forwarded.
    for (const id of ['c1', 'never-existed']) {
      await expect(ipc.invoke(IPC.api, app, 'decide', [id, { kind: 'allow-once' }])).resolves.toEqual({ ok: true, value: { ok: false, error: 'not-pending' } });
    }
  });

  it('turns a broker error into the broker sentence', async () => {
    const { ipc, app } = setup();
    await expect(ipc.invoke(IPC.api, app, 'addServer', ['taken', { command: 'x' }])).resolves.toEqual({
      ok: false,
      error: 'A server named "taken" already exists.',
    });
  });

  it('says so when the broker lacks a method', async () => {
    const { ipc, app } = setup();
    await expect(ipc.invoke(IPC.api, app, 'listRules', [])).resolves.toEqual({
      ok: false,
      error: 'listRules is not available in this version of Countersign.',
    });
  });
});

describe('gatekeeper: desktop methods and ready', () => {
  it('validates desktop arguments too', async () => {
    const { ipc, desktop, app } = setup();
    await expect(ipc.invoke(IPC.desktop, app, 'openExternal', [42])).resolves.toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid arguments for openExternal/),
    });
    await expect(ipc.invoke(IPC.desktop, app, 'updateDesktopSettings', [{ notifications: 'off' }])).resolves.toMatchObject({ ok: false });
    await expect(ipc.invoke(IPC.desktop, app, 'updateDesktopSettings', [{ autoApprove: true }])).resolves.toMatchObject({ ok: false });
    await expect(ipc.invoke(IPC.desktop, app, 'readFile', ['/etc/passwd'])).resolves.toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown desktop method/),
    });
    // The renderer may only ask for the install: no path, no content, nothing to choose.
    await expect(ipc.invoke(IPC.desktop, app, 'installCommandLineTool', [{ path: '/usr/bin/sudo' }])).resolves.toMatchObject({
      ok: false,
      error: expect.stringMatching(/invalid arguments for installCommandLineTool/),
    });
    expect(desktop.installCommandLineTool).not.toHaveBeenCalled();
    await expect(ipc.invoke(IPC.desktop, app, 'installCommandLineTool', [])).resolves.toEqual({
      ok: true,
      value: { installed: false, message: 'Nothing was written.' },
    });
    expect(desktop.openExternal).not.toHaveBeenCalled();
    await expect(ipc.invoke(IPC.desktop, app, 'updateDesktopSettings', [{ notifications: false }])).resolves.toEqual({
      ok: true,
      value: { notifications: false },
    });
    await expect(ipc.invoke(IPC.desktop, app, 'openExternal', ['https://example.com/'])).resolves.toEqual({ ok: true, value: true });
  });

  it('reports renderer-ready with the sender id', async () => {
    const { ipc, ready, app } = setup();
    await expect(ipc.invoke(IPC.rendererReady, app)).resolves.toEqual({ ok: true, value: null });
    expect(ready).toHaveBeenCalledWith(WINDOW_ID);
  });
});
