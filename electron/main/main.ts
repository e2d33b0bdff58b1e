// The desktop app's main process (shell): one instance per data dir, the broker in-process, one
// locked-down window, a tray. Every decision lives in the Electron-free modules next to this file;
// here they are only wired to Electron. Built to dist/electron/main.mjs.
import { app, dialog, ipcMain, Menu, protocol, session, shell, type BrowserWindow } from 'electron';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CountersignApi } from '../../shared/api.js';
import { escapeControl } from '../../shared/escape.js';
import { pickLaunch } from '../broker/core/server-service.js';
import { startBroker, type RunningBroker } from '../broker/core/broker-host.js';
import { countersignCommand, useInstalledApp } from '../broker/core/cli-command.js';
import { keepYoungGenerationSmall } from '../broker/core/heap-tuning.js';
import { launchHash } from '../broker/trust/launch-consent.js';
import { IPC } from '../ipc/channels.js';
import { installCommandLineTool } from './cli-install.js';
import { appItself } from './cli-mode.js';
import { DesktopSettingsStore } from './desktop-settings.js';
import { guardConsent } from './consent-guard.js';
import { confirmDialogOptions, createExternalOpener } from './external-links.js';
import { registerGatekeeper, type DesktopHandlers } from './gatekeeper.js';
import { desktopDataDir, startsHidden } from './launch-options.js';
import { systemLoginItem, xdgAutostart, xdgConfigHome } from './login-item.js';
import { Notifier } from './notifier.js';
import { QuitSequence } from './quit-sequence.js';
import { RendererChannel } from './renderer-channel.js';
import { APP_SCHEME } from './security-config.js';
import { guardWebContents, hardenSession, registerAppProtocol } from './session.js';
import { startupErrorMessage } from './startup-error.js';
import { TrayController, type Toggle } from './tray-controller.js';
import { createNotification, createTray, notificationsSupported } from './tray-shell.js';
import { createAppWindow } from './window.js';
import { handleCloseRequest, handleSecondInstance, revealWindow } from './window-lifecycle.js';

const APP_ID = 'dev.countersign.app';
const here = path.dirname(fileURLToPath(import.meta.url));
const RENDERER_DIR = path.join(here, '..', 'renderer');
const PRELOAD = path.join(here, 'preload.cjs');
const ICONS = path.join(here, 'icons');
const APP_ICON = path.join(ICONS, 'icon.png');

const log = (text: string): void => void process.stderr.write(`countersign: ${escapeControl(text)}\n`);

// ---- before 'ready' (no top-level await above this point: 'ready' must not pass us by) ----------

// This process hosts the broker for as long as the app runs (heap-tuning.ts says why).
keepYoungGenerationSmall();
// userData is the data dir, as the CLI resolves it; it also scopes Electron's single-instance lock,
// so one app runs per data dir, just as one broker does. Chromium's own files go in a subfolder.
const dataDir = desktopDataDir(process.argv, process.env);
// The commands the app shows and writes for clients name this executable in --cli mode (cli-command.ts).
useInstalledApp(appItself(app.isPackaged, app.isPackaged ? app.getPath('exe') : process.execPath, path.join(here, 'entry.mjs')));
app.setName('Countersign');
app.setPath('userData', dataDir);
app.setPath('sessionData', path.join(dataDir, 'chromium'));
if (process.platform === 'win32') app.setAppUserModelId(APP_ID);
app.enableSandbox();
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

let win: BrowserWindow | undefined;
let running: RunningBroker | undefined;
const channel = new RendererChannel();
const cleanups: Array<() => void> = [];

const openExternal = createExternalOpener({
  confirm: async (href) => {
    const options = confirmDialogOptions(href);
    const { response } = win && !win.isDestroyed() ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
    return response === 1;
  },
  open: (href) => shell.openExternal(href),
});

const quit = new QuitSequence({
  stop: async () => {
    for (const cleanup of cleanups.splice(0).reverse()) cleanup();
    await running?.stop();
  },
  quitAgain: () => app.quit(),
  onError: (error) => log(`while quitting: ${error instanceof Error ? error.message : String(error)}`),
});

app.on('web-contents-created', (_event, contents) => guardWebContents(contents, openExternal));
app.on('before-quit', (event) => quit.onBeforeQuit(event));
// Closing the window hides it; the app lives on in the tray until Quit.
app.on('window-all-closed', () => {});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

if (!app.requestSingleInstanceLock()) {
  // The running instance gets 'second-instance' and shows its window.
  app.quit();
} else {
  app.on('second-instance', () => handleSecondInstance(() => win, showWindow));
  app.on('activate', () => showWindow());
  app.whenReady().then(start, (error: unknown) => fail(error));
}

// ---- after 'ready' ---------------------------------------------------------------------------

async function start(): Promise<void> {
  hardenSession(session.defaultSession);
  registerAppProtocol(protocol, RENDERER_DIR);
  Menu.setApplicationMenu(process.platform === 'darwin' ? Menu.buildFromTemplate([{ role: 'appMenu' }, { role: 'editMenu' }, { role: 'windowMenu' }]) : null);

  try {
    running = await startBroker({
      dataDir,
      rendererDir: RENDERER_DIR,
      onWarning: log,
      onServerStderr: (server, text) => void process.stderr.write(`[${escapeControl(server)}] ${escapeControl(text, { keepNewlines: true })}`),
    });
  } catch (error) {
    fail(error);
    return;
  }
  if (quit.quitting) {
    // Quit came while the broker was starting: the quit sequence has already run without it.
    await running.stop();
    return;
  }
  const api: CountersignApi = running.broker.apiFor('desktop');
  // The window only asks: what starts or changes a command acts only on a native dialog's confirm.
  const consentApi = guardConsent(api, {
    showDialog: (options) => (win && !win.isDestroyed() ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options)),
    launchHash,
    pickLaunch,
  });
  const settings = new DesktopSettingsStore(dataDir, log);

  const desktop: DesktopHandlers = {
    openExternal: async (url) => (await openExternal(url)) === 'opened',
    getDesktopSettings: async () => settings.get(),
    updateDesktopSettings: async (patch) => settings.update(patch),
    installCommandLineTool: () =>
      installCommandLineTool({
        command: countersignCommand(),
        env: { platform: process.platform, home: os.homedir(), env: process.env },
        confirm: async ({ message, detail, buttons }) => {
          const options = { type: 'question' as const, message, detail, buttons, defaultId: 0, cancelId: 0, noLink: true };
          const { response } = win && !win.isDestroyed() ? await dialog.showMessageBox(win, options) : await dialog.showMessageBox(options);
          return response === 1;
        },
      }),
  };
  cleanups.push(
    registerGatekeeper({
      ipcMain,
      api: consentApi,
      desktop,
      appWebContentsId: () => (win && !win.isDestroyed() ? win.webContents.id : undefined),
      onRendererReady: (id) => channel.ready(id),
      onRefused: (reason) => log(`refused IPC: ${reason}`),
    }),
  );
  cleanups.push(api.subscribe((event) => channel.send(IPC.event, event)));

  const notifier = new Notifier({
    api,
    create: (content) => createNotification(content, APP_ICON),
    enabled: () => settings.get().notifications,
    supported: notificationsSupported,
    openCall,
    onError: (error) => log(`notification failed: ${String(error)}`),
  });
  notifier.start();
  cleanups.push(() => notifier.stop());

  const { tray, like } = createTray(ICONS, showWindow);
  const notificationsToggle: Toggle = {
    get: () => settings.get().notifications,
    set: (on) => void settings.update({ notifications: on }),
  };
  const trayController = new TrayController({
    tray: like,
    api,
    // Windows has no badge count (only overlay icons); the tooltip says it there.
    setBadge: (count) => {
      if (process.platform !== 'win32') app.setBadgeCount(count);
    },
    openWindow: showWindow,
    quit: () => app.quit(),
    notifications: notificationsToggle,
    startAtLogin: loginItem(),
    onError: (error) => log(`tray: ${error instanceof Error ? error.message : String(error)}`),
  });
  cleanups.push(
    settings.onChange((now) => {
      if (!now.notifications) notifier.clear();
      trayController.render();
    }),
  );
  await trayController.start();
  cleanups.push(
    () => trayController.stop(),
    () => tray.destroy(),
  );

  const openedAtLogin = process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin;
  win = newWindow(!startsHidden(process.argv, openedAtLogin));
}

function newWindow(show: boolean): BrowserWindow {
  const created = createAppWindow({ preload: PRELOAD, icon: APP_ICON, show });
  channel.attach(created.webContents);
  created.on('close', (event) => handleCloseRequest(event, created, quit.quitting));
  created.on('closed', () => {
    if (win === created) win = undefined;
  });
  created.webContents.on('did-start-navigation', (details) => {
    if (details.isMainFrame && !details.isSameDocument) channel.markNotReady();
  });
  created.webContents.on('render-process-gone', (_event, details) => {
    channel.markNotReady();
    log(`the window's page ended (${details.reason}); it comes back when you open Countersign again.`);
    if (!quit.quitting) created.destroy();
  });
  return created;
}

/** Shows the window, making a new one if the last one is gone (broker running only). */
function showWindow(): void {
  if (revealWindow(win) || !running || quit.quitting) return;
  win = newWindow(true);
}

function openCall(id: string): void {
  showWindow();
  channel.send(IPC.openCall, id);
}

function loginItem(): Toggle | undefined {
  // An unpackaged run would register the bare Electron binary.
  if (!app.isPackaged) return undefined;
  if (process.platform === 'linux') return xdgAutostart(xdgConfigHome(process.env, os.homedir()), process.env.APPIMAGE ?? process.execPath);
  return systemLoginItem(app);
}

function fail(error: unknown): void {
  const { title, body } = startupErrorMessage(error, dataDir);
  log(`${title}: ${body}`);
  dialog.showErrorBox(title, body);
  app.exit(1);
}
