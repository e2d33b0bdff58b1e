// The browser's own notifications (the desktop app has its shell's): whether this page may show them,
// and asking, which browsers allow only from a click. No prompt ever appears on its own.

export type NotifyPermission = NotificationPermission | 'unsupported';

type NotificationApi = typeof Notification;

function api(win: Window): NotificationApi | undefined {
  return (win as Window & { Notification?: NotificationApi }).Notification;
}

export function notifyPermission(win: Window = window): NotifyPermission {
  const N = api(win);
  return N ? N.permission : 'unsupported';
}

/** Call only from a user gesture (a click): browsers ignore or block a request made any other way. */
export async function askNotifyPermission(win: Window = window): Promise<NotifyPermission> {
  const N = api(win);
  if (!N) return 'unsupported';
  return N.permission === 'default' ? N.requestPermission() : N.permission;
}

/** A person looking at this tab sees the card; another tab, window or app gets a notification. */
export function tabOutOfView(doc: Document = document): boolean {
  return doc.visibilityState !== 'visible' || !doc.hasFocus();
}

export interface ShownNotification {
  close(): void;
}

/** Shows one notification; `onClick` runs when the person clicks it. Undefined when it cannot be shown. */
export function showNotification(
  content: { title: string; body: string; tag: string },
  onClick: () => void,
  win: Window = window,
): ShownNotification | undefined {
  const N = api(win);
  if (!N || N.permission !== 'granted') return undefined;
  const n = new N(content.title, { body: content.body, tag: content.tag, icon: './favicon.svg' });
  n.addEventListener('click', () => {
    win.focus();
    n.close();
    onClick();
  });
  return n;
}
