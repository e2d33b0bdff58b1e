// Shell: Electron's Tray, Menu and Notification behind the small interfaces the controllers use.
import { Menu, nativeImage, Notification, Tray, type MenuItemConstructorOptions } from 'electron';
import path from 'node:path';
import type { NotificationLike } from './notifier.js';
import type { MenuItemSpec, TrayLike } from './tray-controller.js';

export function createTray(iconsDir: string, onClick: () => void): { tray: Tray; like: TrayLike } {
  // macOS wants a black "template" image that it tints for light and dark menu bars.
  const mac = process.platform === 'darwin';
  const image = nativeImage.createFromPath(path.join(iconsDir, mac ? 'trayTemplate.png' : 'tray.png'));
  if (mac) image.setTemplateImage(true);
  const tray = new Tray(image);
  tray.on('click', onClick);
  const like: TrayLike = {
    setToolTip: (text) => tray.setToolTip(text),
    setContextMenu: (items) => tray.setContextMenu(Menu.buildFromTemplate(items.map(toMenuItem))),
    ...(mac ? { setTitle: (text: string) => tray.setTitle(text) } : {}),
  };
  return { tray, like };
}

function toMenuItem(item: MenuItemSpec): MenuItemConstructorOptions {
  if (item.type === 'separator') return { type: 'separator' };
  return { id: item.id, label: item.label, type: item.type ?? 'normal', checked: item.checked, enabled: item.enabled ?? true, click: item.click };
}

export function createNotification(content: { title: string; body: string }, icon: string): NotificationLike {
  return new Notification({ title: content.title, body: content.body, icon });
}

export function notificationsSupported(): boolean {
  return Notification.isSupported();
}
