// Chooses how this page reaches the broker: the Electron preload's `window.countersign` when present,
// otherwise HTTP with the token from the URL fragment. Nothing else in the renderer knows which.
import type { CountersignApi } from '../../../shared/api';
import type { DesktopApi } from '../../../electron/ipc/desktop-api';
import type { ConnectionSource } from './connection';
import { createHttpBridge } from './http-bridge';
import { takeTokenFromLocation } from './token';

export type { DesktopApi };

declare global {
  interface Window {
    countersign?: CountersignApi;
    /** Only in the desktop app: notifications and their clicks. Always optional. */
    countersignDesktop?: DesktopApi;
  }
}

export type PickedBridge = { api: CountersignApi; connection?: ConnectionSource; desktop?: DesktopApi } | { api?: undefined; problem: 'no-token' };

export function pickBridge(win: Window = window): PickedBridge {
  if (win.countersign) return { api: win.countersign, desktop: win.countersignDesktop };
  const token = takeTokenFromLocation(win.location, win.history);
  if (!token) return { problem: 'no-token' };
  return createHttpBridge({ token });
}
