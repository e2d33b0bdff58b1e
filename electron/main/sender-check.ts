// Which IPC senders the gatekeeper answers: the app's own window, its top frame, at the app's own URL.
import { isAppUrl } from './guards.js';

/** The parts of Electron's IpcMainInvokeEvent that identify the sender. */
export interface IpcSenderLike {
  readonly sender: { readonly id: number };
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

/** `appWebContentsId` is the app window's webContents id, or undefined while there is no window. */
export function isTrustedSender(event: IpcSenderLike, appWebContentsId: number | undefined): boolean {
  if (appWebContentsId === undefined || event.sender.id !== appWebContentsId) return false;
  const frame = event.senderFrame;
  // A null frame was navigated away or destroyed; a frame with a parent is an iframe.
  if (!frame || frame.parent !== null) return false;
  return isAppUrl(frame.url);
}
