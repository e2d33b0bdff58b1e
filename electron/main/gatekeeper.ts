// The one place that registers IPC handlers. Every call is checked in this order: the sender is the
// app's window at the app's URL, the method exists, the arguments pass the schema. Only then does it
// reach the broker. A broker refusal that is part of a method's result (decide → not-pending) is
// passed through unchanged, exactly as the HTTP bridge does.
import type { CountersignApi } from '../../shared/api.js';
import { isApiMethod, parseApiArgs } from '../../shared/api-schema.js';
import { IPC, type IpcReply } from '../ipc/channels.js';
import type { DesktopApi } from '../ipc/desktop-api.js';
import { isDesktopMethod, parseDesktopArgs } from './desktop-schema.js';
import { isTrustedSender, type IpcSenderLike } from './sender-check.js';

/** The part of Electron's ipcMain the gatekeeper uses: invoke handlers only, never fire-and-forget listeners. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcSenderLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export type DesktopHandlers = Omit<DesktopApi, 'onOpenCall'>;

export interface GatekeeperOptions {
  ipcMain: IpcMainLike;
  api: Omit<CountersignApi, 'subscribe'>;
  desktop: DesktopHandlers;
  /** The app window's webContents id; undefined while there is none. */
  appWebContentsId(): number | undefined;
  onRendererReady(webContentsId: number): void;
  /** Told about refused senders (never about arguments, which may hold secrets). */
  onRefused?(reason: string): void;
}

export const REFUSED_SENDER = 'Countersign refused an IPC call from outside its own window.';

export function registerGatekeeper(opts: GatekeeperOptions): () => void {
  const trusted = (event: IpcSenderLike): boolean => {
    if (isTrustedSender(event, opts.appWebContentsId())) return true;
    opts.onRefused?.(`sender ${event.sender.id} at ${describeFrame(event)}`);
    return false;
  };

  opts.ipcMain.handle(IPC.api, async (event, method, args): Promise<IpcReply> => {
    if (!trusted(event)) return { ok: false, error: REFUSED_SENDER };
    if (!isApiMethod(method)) return { ok: false, error: `unknown API method ${JSON.stringify(method)}` };
    const parsed = parseApiArgs(method, args);
    if (!parsed.ok) return parsed;
    return run(opts.api, method, parsed.args);
  });

  opts.ipcMain.handle(IPC.desktop, async (event, method, args): Promise<IpcReply> => {
    if (!trusted(event)) return { ok: false, error: REFUSED_SENDER };
    if (!isDesktopMethod(method)) return { ok: false, error: `unknown desktop method ${JSON.stringify(method)}` };
    const parsed = parseDesktopArgs(method, args);
    if (!parsed.ok) return parsed;
    return run(opts.desktop, method, parsed.args);
  });

  opts.ipcMain.handle(IPC.rendererReady, async (event): Promise<IpcReply> => {
    if (!trusted(event)) return { ok: false, error: REFUSED_SENDER };
    opts.onRendererReady(event.sender.id);
    return { ok: true, value: null };
  });

  return () => {
    for (const channel of [IPC.api, IPC.desktop, IPC.rendererReady]) opts.ipcMain.removeHandler(channel);
  };
}

async function run<T extends object>(target: T, method: keyof T & string, args: unknown[]): Promise<IpcReply> {
  const fn = target[method];
  if (typeof fn !== 'function') return { ok: false, error: `${method} is not available in this version of Countersign.` };
  try {
    const value: unknown = await (fn as (...a: unknown[]) => unknown).apply(target, args);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function describeFrame(event: IpcSenderLike): string {
  const url = event.senderFrame?.url ?? '(no frame)';
  return url.length > 100 ? `${url.slice(0, 100)}…` : url;
}
