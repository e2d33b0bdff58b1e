// The built main process (dist/electron/main.mjs from a fresh build) run under plain Node with a fake
// 'electron' placed next to it: the real broker starts in-process, a real MCP client connects with
// `countersign connect`, and the test plays the window, the tray and the notifications. This checks
// the shell's wiring, which the unit tests of each module cannot. (The real Electron runs in
// e2e/electron.spec.ts, where its binary is installed.)
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrokerEvent, PendingCall } from '../../shared/api.js';
import { startBroker, type RunningBroker } from '../../electron/broker/core/broker-host.js';
import { IPC } from '../../electron/ipc/channels.js';
import { APP_CSP, WEB_PREFERENCES } from '../../electron/main/security-config.js';
import { CLI, EVERYTHING_SERVER, NODE } from '../helpers/paths.js';
import { installFakeApp, ROOT } from './build-once.js';

const FIXTURES = path.join(ROOT, 'test', 'electron', 'fixtures');

interface Snapshot {
  paths: Record<string, string>;
  privileged: Array<{ scheme: string; privileges: Record<string, boolean> }>;
  sandboxEnabled: boolean;
  singleInstanceRequested: boolean;
  ipcChannels: string[];
  ipcListeners: string[];
  protocols: string[];
  permissionHandlers: string[];
  window?: {
    id: number;
    options: { webPreferences: Record<string, unknown>; show: boolean };
    url: string;
    visible: boolean;
    sent: unknown[][];
    hasWindowOpenHandler: boolean;
  };
  windowCount: number;
  tray?: { tooltip: string; destroyed: boolean; image: string };
  menu: Array<{ id?: string; label?: string; type?: string; checked?: boolean; enabled?: boolean }>;
  badge?: number;
  notifications: Array<{ title: string; body: string; shown: boolean; closed: boolean }>;
  dialogs: Array<{ message?: string; detail?: string }>;
  errorBoxes: Array<{ title: string; content: string }>;
  openedExternal: string[];
  quitted: boolean;
  exitCode?: number;
}

function installApp(): string {
  return path.join(installFakeApp(), 'dist', 'electron', 'main.mjs');
}

class MainProcess {
  readonly child: ChildProcess;
  stderr = '';
  #next = 0;
  readonly #waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly started: Promise<void>;
  readonly exited: Promise<number | null>;

  constructor(main: string, dataDir: string, env: NodeJS.ProcessEnv = {}) {
    this.child = fork(path.join(FIXTURES, 'run-main.mjs'), [main, `--data-dir=${dataDir}`], {
      execArgv: [],
      env: { ...process.env, COUNTERSIGN_HOME: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((r) => this.child.once('exit', (code) => r(code)));
    this.started = new Promise((resolve, reject) => {
      this.child.once('exit', (code) => reject(new Error(`main exited ${code}: ${this.stderr}`)));
      this.child.on('message', (msg: { ready?: boolean; id?: number; ok?: boolean; value?: unknown; error?: string }) => {
        if (msg.ready) return resolve();
        const waiter = this.#waiting.get(msg.id!);
        this.#waiting.delete(msg.id!);
        if (msg.ok) waiter?.resolve(msg.value);
        else waiter?.reject(new Error(msg.error));
      });
    });
  }

  async cmd<T = Snapshot>(cmd: string, args: Record<string, unknown> = {}): Promise<T> {
    await this.started;
    const id = ++this.#next;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, cmd, args });
    });
  }

  /** Calls through the gatekeeper as the app window (or as someone else). */
  invoke<T = unknown>(channel: string, args: unknown[], from: 'app' | 'foreign' | 'foreign-url' = 'app'): Promise<T> {
    return this.cmd<T>('invoke', { channel, args, from });
  }

  api<T = unknown>(method: string, ...args: unknown[]): Promise<{ ok: boolean; value?: T; error?: string }> {
    return this.invoke(IPC.api, [method, args]);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

describe('main process under a fake Electron', () => {
  let main: string;
  let dataDir: string;
  let app: MainProcess;
  let client: Client | undefined;

  beforeAll(async () => {
    main = installApp();
    dataDir = mkdtempSync(path.join(tmpdir(), 'cs-app-data-'));
    app = new MainProcess(main, dataDir);
  }, 60_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    app?.kill();
  });

  it('starts: data dir as userData, privileged app scheme, sandbox, one locked-down window, tray', async () => {
    const s = await app.cmd('start');
    expect(s.errorBoxes).toEqual([]);
    expect(s.paths.userData).toBe(dataDir);
    expect(s.paths.sessionData).toBe(path.join(dataDir, 'chromium'));
    expect(s.singleInstanceRequested).toBe(true);
    expect(s.sandboxEnabled).toBe(true);
    expect(s.privileged).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
    expect(s.protocols).toEqual(['app']);
    expect(s.permissionHandlers).toEqual(['check', 'device', 'request']);
    expect(s.ipcChannels).toEqual([IPC.api, IPC.desktop, IPC.rendererReady].sort());
    // No fire-and-forget listeners: every channel is an invoke handler behind the gatekeeper.
    expect(s.ipcListeners).toEqual([]);
    expect(s.window!.options.webPreferences).toEqual({ ...WEB_PREFERENCES, preload: path.join(path.dirname(main), 'preload.cjs') });
    expect(s.window!.url).toBe('app://countersign/index.html');
    expect(s.window!.hasWindowOpenHandler).toBe(true);
    expect(s.tray!.tooltip).toBe('Countersign — No calls waiting');
    expect(s.tray!.image).toBe(path.join(path.dirname(main), 'icons', process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png'));
    expect(s.menu.map((i) => i.id ?? i.type)).toEqual(['status', 'separator', 'open', 'pause', 'notifications', 'separator', 'quit']);
    // The broker runs in this process and holds the data dir's lock.
    expect(JSON.parse(readFileSync(path.join(dataDir, 'broker.lock'), 'utf8')).pid).toBe(app.child.pid);
    const shown = await app.cmd('snapshot');
    expect(shown.window!.visible).toBe(true);
  });

  it('serves its own files with the CSP header', async () => {
    const res = await app.cmd<{ status: number; headers: Record<string, string>; body: string }>('protocol', { url: 'app://countersign/', method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(APP_CSP);
    const escape = await app.cmd<{ status: number }>('protocol', { url: 'app://countersign/%2e%2e/%2e%2e/etc/passwd', method: 'GET' });
    expect(escape.status).toBe(404);
    const headers = await app.cmd<{ responseHeaders: Record<string, string[]> }>('headers', {
      responseHeaders: { 'Content-Security-Policy': ['default-src *'] },
    });
    expect(headers.responseHeaders['Content-Security-Policy']).toEqual([APP_CSP]);
    expect(await app.cmd('beforeRequest', { url: 'https://example.com/' })).toEqual({ cancel: true });
    expect(await app.cmd('beforeRequest', { url: 'app://countersign/assets/x.js' })).toEqual({ cancel: false });
  });

  it('denies permissions, navigation and new windows; links go out only after a confirm', async () => {
    expect(await app.cmd('permissions')).toEqual({ request: false, check: false, device: false });
    expect(await app.cmd('navigate', { url: 'app://countersign/elsewhere.html' })).toEqual({ prevented: true });
    expect(await app.cmd('navigate', { url: 'file:///etc/passwd' })).toEqual({ prevented: true });
    expect(await app.cmd('windowOpen', { url: 'https://example.com/docs' })).toEqual({ action: 'deny' });
    let s = await app.cmd('snapshot');
    expect(s.dialogs.map((d) => d.detail)).toEqual(['https://example.com/docs']);
    expect(s.openedExternal).toEqual([]);
    await app.cmd('setDialogResponse', { response: 1 });
    expect(await app.cmd('navigate', { url: 'https://example.com/ok' })).toEqual({ prevented: true });
    await expect(app.invoke(IPC.desktop, ['openExternal', ['file:///etc/passwd']])).resolves.toEqual({ ok: true, value: false });
    s = await app.cmd('snapshot');
    expect(s.openedExternal).toEqual(['https://example.com/ok']);
    await app.cmd('setDialogResponse', { response: 0 });
  });

  it('the gatekeeper answers only the window, with schema checks', async () => {
    const status = await app.api<{ dataDir: string; paused: boolean }>('getStatus');
    expect(status).toMatchObject({ ok: true, value: { dataDir, paused: false } });
    // Client entries the app shows run the app's own executable in command-line mode (no Node needed).
    const headless = process.platform === 'linux' ? ['--ozone-platform=headless', '--disable-gpu'] : [];
    expect(status).toMatchObject({
      value: {
        connectLaunch: {
          command: process.execPath,
          args: [path.join(path.dirname(main), 'entry.mjs'), ...headless, '--cli', 'connect', '<server>', '--data-dir', dataDir],
        },
      },
    });
    await expect(app.invoke(IPC.api, ['getStatus', []], 'foreign')).resolves.toMatchObject({ ok: false, error: expect.stringMatching(/refused/) });
    await expect(app.invoke(IPC.api, ['getStatus', []], 'foreign-url')).resolves.toMatchObject({ ok: false });
    await expect(app.api('setPaused', 'yes')).resolves.toMatchObject({ ok: false, error: expect.stringMatching(/invalid arguments for setPaused/) });
  });

  it('"Install command line tool" from the window shows a native question first; Cancel writes nothing', async () => {
    const before = (await app.cmd('snapshot')).dialogs.length;
    await app.cmd('setDialogResponse', { response: 0 });
    await expect(app.invoke(IPC.desktop, ['installCommandLineTool', []])).resolves.toEqual({
      ok: true,
      value: { installed: false, message: 'Nothing was written.' },
    });
    const asked = (await app.cmd('snapshot')).dialogs.slice(before) as Array<{ message?: string; detail?: string; buttons?: string[] }>;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ message: 'Install the countersign command?', buttons: ['Cancel', 'Install'] });
    // The launcher it would write runs this app's own command line.
    expect(asked[0]!.detail).toContain(`exec ${process.execPath} ${path.join(path.dirname(main), 'entry.mjs')}`);
  });

  it('a real MCP client call: notification, tray count, queued events, approval through IPC', async () => {
    // The window only asks: the main process shows a native dialog, and a cancel changes nothing.
    const before = (await app.cmd('snapshot')).dialogs.length;
    await expect(app.api('addServer', 'everything', { command: NODE, args: [EVERYTHING_SERVER] })).resolves.toMatchObject({
      ok: false,
      error: expect.stringMatching(/did not confirm/),
    });
    await expect(app.api<unknown[]>('listServers')).resolves.toEqual({ ok: true, value: [] });
    await app.cmd('setDialogResponse', { response: 1 });
    await expect(app.api('addServer', 'everything', { command: NODE, args: [EVERYTHING_SERVER] })).resolves.toMatchObject({ ok: true });
    // The person approves the exact command line shown (its hash), in a second native dialog.
    const [shown] = (await app.api<Array<{ launch: { hash: string } }>>('listServers')).value!;
    await expect(app.api('approveLaunch', 'everything', shown!.launch.hash)).resolves.toMatchObject({ ok: true });
    await app.cmd('setDialogResponse', { response: 0 });
    const asked = (await app.cmd('snapshot')).dialogs.slice(before) as Array<{ message?: string; detail?: string }>;
    expect(asked.map((d) => d.message)).toEqual([
      "Add the server 'everything'?",
      "Add the server 'everything'?",
      "Let 'everything' run this on your computer?",
    ]);
    expect(asked[2]!.detail).toContain(`  [0] ${NODE}\n  [1] ${EVERYTHING_SERVER}\n`);
    expect(asked[2]!.detail).toContain(`Launch hash: ${shown!.launch.hash}`);

    client = new Client({ name: 'desktop-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'connect', 'everything', '--data-dir', dataDir], stderr: 'pipe' }));
    const result = client.callTool({ name: 'echo', arguments: { message: 'through the desktop app' } });

    let s = await app.cmd('waitFor', { what: 'notification' });
    expect(s.notifications).toHaveLength(1);
    expect(s.notifications[0]).toMatchObject({ title: 'Approve echo?', shown: true });
    expect(s.notifications[0]!.body).toContain('desktop-test wants to run echo on everything');
    s = await app.cmd('waitFor', { what: 'badge1' });
    expect(s.tray!.tooltip).toBe('Countersign — 1 call waiting');

    const pending = await app.api<PendingCall[]>('listPending');
    const call = pending.value![0]!;
    expect(call.tool).toBe('echo');

    // Nothing reaches the page until it says it is ready; then the queue arrives in order.
    s = await app.cmd('clickNotification', { index: 0 });
    expect(s.window!.visible).toBe(true);
    expect(s.window!.sent).toEqual([]);
    await expect(app.invoke(IPC.rendererReady, [])).resolves.toEqual({ ok: true, value: null });
    s = await app.cmd('snapshot');
    const events = s.window!.sent.filter(([ch]) => ch === IPC.event).map(([, e]) => (e as BrokerEvent).type);
    expect(events).toContain('pending-added');
    expect(s.window!.sent.at(-1)).toEqual([IPC.openCall, call.id]);

    await expect(app.api('decide', call.id, { kind: 'allow-once' })).resolves.toEqual({ ok: true, value: { ok: true, forwarded: true } });
    const done = await result;
    expect(JSON.stringify(done.content)).toContain('through the desktop app');
    expect(done.isError).toBeFalsy();
    // Decided already: the broker's refusal comes back unchanged.
    await expect(app.api('decide', call.id, { kind: 'allow-once' })).resolves.toEqual({ ok: true, value: { ok: false, error: 'not-pending' } });
    s = await app.cmd('waitFor', { what: 'badge0' });
    // Once ready, events flow straight to the page.
    expect(s.window!.sent.some(([ch, e]) => ch === IPC.event && (e as BrokerEvent).type === 'pending-removed')).toBe(true);
  });

  it('Pause in the tray denies every call with a result that says Countersign is paused', async () => {
    await app.cmd('menuClick', { id: 'pause' });
    const s = await app.cmd('waitFor', { what: 'paused' });
    expect(s.tray!.tooltip).toMatch(/Paused: every call is denied/);
    const denied = await client!.callTool({ name: 'echo', arguments: { message: 'while paused' } });
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toMatch(/paused/i);
    await expect(app.api('getStatus')).resolves.toMatchObject({ value: { paused: true } });
    await app.cmd('menuClick', { id: 'pause' });
  });

  it('the notifications setting turns them off', async () => {
    await expect(app.invoke(IPC.desktop, ['updateDesktopSettings', [{ notifications: false }]])).resolves.toEqual({
      ok: true,
      value: { notifications: false },
    });
    const s = await app.cmd('snapshot');
    expect(s.menu.find((i) => i.id === 'notifications')?.checked).toBe(false);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'desktop.json'), 'utf8')).notifications).toBe(false);
  });

  it('closing the window hides it; a second launch shows it again', async () => {
    expect(await app.cmd('closeWindow')).toEqual({ prevented: true, visible: false });
    const s = await app.cmd('secondInstance');
    expect(s.window!.visible).toBe(true);
    expect(s.windowCount).toBe(1);
  });

  it('Quit stops the broker cleanly before the app exits', async () => {
    await client?.close();
    client = undefined;
    const s = await app.cmd('quit');
    expect(s.quitted).toBe(true);
    expect(s.tray!.destroyed).toBe(true);
    expect(s.ipcChannels).toEqual([]);
    expect(existsSync(path.join(dataDir, 'broker.lock'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'broker.sock'))).toBe(false);
  });
});

describe('main process start-up refusals', () => {
  let main: string;
  beforeAll(() => {
    main = installApp();
  }, 60_000);

  it('explains that another broker (countersign serve) holds the data dir, and exits', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cs-app-held-'));
    let held: RunningBroker | undefined;
    const app = new MainProcess(main, dataDir);
    try {
      held = await startBroker({ dataDir, rendererDir: path.join(dataDir, 'none') });
      const s = await app.cmd('start');
      expect(s.errorBoxes).toHaveLength(1);
      expect(s.errorBoxes[0]!.title).toBe('Countersign is already running');
      expect(s.errorBoxes[0]!.content).toContain(`pid ${process.pid}`);
      expect(s.exitCode).toBe(1);
      expect(s.window).toBeUndefined();
    } finally {
      app.kill();
      await held?.stop();
    }
  });

  it('a second instance hands over to the first and quits', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cs-app-second-'));
    const app = new MainProcess(main, dataDir, { FAKE_ELECTRON_LOCK: '0' });
    try {
      const s = await app.cmd('snapshot');
      expect(s.singleInstanceRequested).toBe(true);
      expect(s.quitted).toBe(true);
      expect(s.window).toBeUndefined();
      expect(existsSync(path.join(dataDir, 'broker.lock'))).toBe(false);
    } finally {
      app.kill();
    }
  });
});
