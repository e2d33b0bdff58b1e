// Shell: the one app window, built from WEB_PREFERENCES and nothing else.
import { BrowserWindow } from 'electron';
import { APP_ENTRY_URL, WEB_PREFERENCES } from './security-config.js';

export interface AppWindowOptions {
  preload: string;
  icon: string;
  show: boolean;
}

export function createAppWindow(opts: AppWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1120,
    height: 780,
    minWidth: 720,
    minHeight: 480,
    show: false,
    title: 'Countersign',
    icon: opts.icon,
    autoHideMenuBar: true,
    webPreferences: { ...WEB_PREFERENCES, preload: opts.preload },
  });
  if (opts.show) win.once('ready-to-show', () => win.show());
  void win.loadURL(APP_ENTRY_URL);
  return win;
}
