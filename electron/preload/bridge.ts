// Builds the objects the preload exposes: the typed CountersignApi and DesktopApi, on top of three
// IPC channels. Pure (ipcRenderer is passed in), so it is tested under Node with a fake.
// Never hands the renderer an IpcRendererEvent (its `sender` is ipcRenderer itself) or a raw channel.
import type { BrokerEvent, CountersignApi } from '../../shared/api.js';
import { API_METHODS } from '../../shared/api-schema.js';
import { IPC, isIpcReply } from '../ipc/channels.js';
import { DESKTOP_METHODS, type DesktopApi } from '../ipc/desktop-api.js';

/** The part of Electron's ipcRenderer this bridge uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export interface Bridge {
  api: CountersignApi;
  desktop: DesktopApi;
}

export function createBridge(ipc: IpcRendererLike): Bridge {
  const call = async (channel: string, method: string, args: unknown[]): Promise<unknown> => {
    const reply = await ipc.invoke(channel, method, trimTrailingUndefined(args));
    if (!isIpcReply(reply)) throw new Error('Countersign: malformed reply from the main process.');
    if (!reply.ok) throw new Error(reply.error);
    return reply.value;
  };

  // The main process queues events until the page says it listens; once per page load is enough.
  let readySent = false;
  const sayReady = (): void => {
    if (readySent) return;
    readySent = true;
    ipc.invoke(IPC.rendererReady).catch(() => {
      readySent = false;
    });
  };

  const eventListeners = new Set<(event: BrokerEvent) => void>();
  ipc.on(IPC.event, (_event, payload) => {
    if (!isBrokerEvent(payload)) return;
    for (const listener of [...eventListeners]) safely(() => listener(payload));
  });

  const openCallListeners = new Set<(id: string) => void>();
  let unclaimedOpenCall: string | undefined;
  ipc.on(IPC.openCall, (_event, id) => {
    if (typeof id !== 'string') return;
    if (openCallListeners.size === 0) {
      unclaimedOpenCall = id;
      return;
    }
    for (const listener of [...openCallListeners]) safely(() => listener(id));
  });

  const methods = Object.fromEntries(API_METHODS.map((method) => [method, (...args: unknown[]) => call(IPC.api, method, args)])) as Omit<
    CountersignApi,
    'subscribe'
  >;

  const api: CountersignApi = {
    ...methods,
    subscribe(listener) {
      const wrapped = (event: BrokerEvent): void => listener(event);
      eventListeners.add(wrapped);
      sayReady();
      return () => {
        eventListeners.delete(wrapped);
      };
    },
  };

  const desktopMethods = Object.fromEntries(DESKTOP_METHODS.map((method) => [method, (...args: unknown[]) => call(IPC.desktop, method, args)])) as Omit<
    DesktopApi,
    'onOpenCall'
  >;

  const desktop: DesktopApi = {
    ...desktopMethods,
    onOpenCall(listener) {
      const wrapped = (id: string): void => listener(id);
      openCallListeners.add(wrapped);
      sayReady();
      if (unclaimedOpenCall !== undefined) {
        const id = unclaimedOpenCall;
        unclaimedOpenCall = undefined;
        safely(() => wrapped(id));
      }
      return () => {
        openCallListeners.delete(wrapped);
      };
    },
  };

  return { api, desktop };
}

/** `f(a, undefined)` means `f(a)`: the schemas take exact tuples, and optional arguments come last. */
function trimTrailingUndefined(args: unknown[]): unknown[] {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  return args.slice(0, end);
}

function isBrokerEvent(value: unknown): value is BrokerEvent {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch (error) {
    // One faulty listener must not stop the others.
    console.error('Countersign: a listener failed', error);
  }
}
