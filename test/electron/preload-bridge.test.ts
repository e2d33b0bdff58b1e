import { describe, expect, it, vi } from 'vitest';
import type { BrokerEvent } from '../../shared/api.js';
import { API_METHODS } from '../../shared/api-schema.js';
import { IPC } from '../../electron/ipc/channels.js';
import { DESKTOP_METHODS } from '../../electron/ipc/desktop-api.js';
import { createBridge, type IpcRendererLike } from '../../electron/preload/bridge.js';
import { flush } from './fakes.js';

/** A fake ipcRenderer: records invokes, lets the test push main → renderer messages. */
class FakeIpcRenderer implements IpcRendererLike {
  readonly invokes: Array<{ channel: string; args: unknown[] }> = [];
  readonly listeners = new Map<string, Array<(event: unknown, ...args: unknown[]) => void>>();
  reply: (channel: string, args: unknown[]) => unknown = () => ({ ok: true, value: null });
  readonly fakeEvent = { sender: 'THE RAW ipcRenderer', senderId: 0 };

  async invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    this.invokes.push({ channel, args });
    return this.reply(channel, args);
  }

  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): this {
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
    return this;
  }

  push(channel: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(channel) ?? []) l(this.fakeEvent, ...args);
  }
}

describe('preload bridge', () => {
  it('exposes exactly the CountersignApi methods plus subscribe, and the desktop methods', () => {
    const { api, desktop } = createBridge(new FakeIpcRenderer());
    expect(Object.keys(api).sort()).toEqual([...API_METHODS, 'subscribe'].sort());
    expect(Object.keys(desktop).sort()).toEqual([...DESKTOP_METHODS, 'onOpenCall'].sort());
    for (const value of [...Object.values(api), ...Object.values(desktop)]) expect(typeof value).toBe('function');
  });

  it('sends method and positional args on one invoke channel and unwraps the reply', async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = () => ({ ok: true, value: { ok: false, error: 'not-pending' } });
    const { api } = createBridge(ipc);
    await expect(api.decide('c1', { kind: 'allow-once' })).resolves.toEqual({ ok: false, error: 'not-pending' });
    expect(ipc.invokes).toEqual([{ channel: IPC.api, args: ['decide', ['c1', { kind: 'allow-once' }]] }]);
  });

  it('drops trailing undefined arguments (optional ones come last)', async () => {
    const ipc = new FakeIpcRenderer();
    const { api } = createBridge(ipc);
    await api.reviewChanges('fs', 'reject', undefined);
    expect(ipc.invokes[0]!.args).toEqual(['reviewChanges', ['fs', 'reject']]);
  });

  it('rejects with the main process sentence, and on a malformed reply', async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = () => ({ ok: false, error: 'invalid arguments for setPaused: 0: Expected boolean' });
    const { api } = createBridge(ipc);
    await expect(api.setPaused(true)).rejects.toThrow('invalid arguments for setPaused: 0: Expected boolean');
    ipc.reply = () => 'surprise';
    await expect(api.getStatus()).rejects.toThrow(/malformed reply/);
  });

  it('routes desktop methods to the desktop channel', async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = () => ({ ok: true, value: true });
    const { desktop } = createBridge(ipc);
    await expect(desktop.openExternal('https://example.com/')).resolves.toBe(true);
    expect(ipc.invokes).toEqual([{ channel: IPC.desktop, args: ['openExternal', ['https://example.com/']] }]);
  });

  it('delivers events to subscribers without the IPC event object, and unsubscribes', () => {
    const ipc = new FakeIpcRenderer();
    const { api } = createBridge(ipc);
    const seen: unknown[][] = [];
    const off = api.subscribe((...args) => seen.push(args));
    const event: BrokerEvent = { type: 'servers-changed' };
    ipc.push(IPC.event, event);
    expect(seen).toEqual([[event]]);
    off();
    ipc.push(IPC.event, event);
    expect(seen).toHaveLength(1);
  });

  it('ignores malformed events and keeps going when one listener throws', () => {
    const ipc = new FakeIpcRenderer();
    const { api } = createBridge(ipc);
    const good = vi.fn();
    vi.spyOn(console, 'error').mockImplementation(() => {});
    api.subscribe(() => {
      throw new Error('bad listener');
    });
    api.subscribe(good);
    ipc.push(IPC.event, 'not an event');
    ipc.push(IPC.event, { type: 'rules-changed' });
    expect(good).toHaveBeenCalledTimes(1);
  });

  it('says renderer-ready once, on the first subscription', async () => {
    const ipc = new FakeIpcRenderer();
    const { api, desktop } = createBridge(ipc);
    expect(ipc.invokes).toEqual([]);
    api.subscribe(() => {});
    api.subscribe(() => {});
    desktop.onOpenCall(() => {});
    await flush();
    expect(ipc.invokes.filter((i) => i.channel === IPC.rendererReady)).toHaveLength(1);
  });

  it('keeps an open-call that came before any listener for the first one', () => {
    const ipc = new FakeIpcRenderer();
    const { desktop } = createBridge(ipc);
    ipc.push(IPC.openCall, 'early');
    const first = vi.fn();
    const off = desktop.onOpenCall(first);
    expect(first).toHaveBeenCalledWith('early');
    ipc.push(IPC.openCall, 'next');
    ipc.push(IPC.openCall, 42);
    expect(first.mock.calls).toEqual([['early'], ['next']]);
    off();
    const second = vi.fn();
    desktop.onOpenCall(second);
    expect(second).not.toHaveBeenCalled();
  });

  it('never hands out ipcRenderer or a way to name a channel', () => {
    const ipc = new FakeIpcRenderer();
    const { api, desktop } = createBridge(ipc);
    const text = JSON.stringify({ api: Object.keys(api), desktop: Object.keys(desktop) });
    expect(text).not.toMatch(/ipc|send|invoke|channel/i);
  });
});
