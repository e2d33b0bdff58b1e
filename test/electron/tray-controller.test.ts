import { describe, expect, it, vi } from 'vitest';
import { statusLine, TrayController, type MenuItemSpec, type Toggle, type TrayLike } from '../../electron/main/tray-controller.js';
import { FakeApi, flush, pendingCall } from './fakes.js';

class FakeTray implements TrayLike {
  tooltip = '';
  title?: string;
  menu: MenuItemSpec[] = [];
  setToolTip(text: string): void {
    this.tooltip = text;
  }
  setContextMenu(items: MenuItemSpec[]): void {
    this.menu = items;
  }
  setTitle(text: string): void {
    this.title = text;
  }
  item(id: string): MenuItemSpec {
    const found = this.menu.find((i) => i.id === id);
    if (!found) throw new Error(`no menu item ${id}`);
    return found;
  }
}

function toggle(initial = false): Toggle & { value: boolean } {
  const t = { value: initial, get: () => t.value, set: (on: boolean) => void (t.value = on) };
  return t;
}

async function setup(opts: { loginItem?: boolean } = {}) {
  const tray = new FakeTray();
  const api = new FakeApi();
  const badge = vi.fn();
  const openWindow = vi.fn();
  const quit = vi.fn();
  const notifications = toggle(true);
  const login = toggle(false);
  const controller = new TrayController({
    tray,
    api,
    setBadge: badge,
    openWindow,
    quit,
    notifications,
    startAtLogin: opts.loginItem === false ? undefined : login,
  });
  return { tray, api, badge, openWindow, quit, notifications, login, controller };
}

describe('tray', () => {
  it('shows the pending count in the tooltip, badge, title and first menu line', async () => {
    const { tray, api, badge, controller } = await setup();
    api.pending = [pendingCall('a'), pendingCall('b')];
    await controller.start();
    expect(tray.tooltip).toBe('Countersign — 2 calls waiting');
    expect(badge).toHaveBeenLastCalledWith(2);
    expect(tray.title).toBe('2');
    expect(tray.item('status')).toMatchObject({ label: '2 calls waiting', enabled: false });
  });

  it('follows pending-added and pending-removed', async () => {
    const { tray, api, badge, controller } = await setup();
    await controller.start();
    expect(tray.tooltip).toBe('Countersign — No calls waiting');
    api.pending = [pendingCall('a')];
    api.emit({ type: 'pending-added', call: pendingCall('a') });
    await flush();
    expect(tray.tooltip).toBe('Countersign — 1 call waiting');
    expect(badge).toHaveBeenLastCalledWith(1);
    api.pending = [];
    api.emit({ type: 'pending-removed', id: 'a', why: 'allowed' });
    await flush();
    expect(badge).toHaveBeenLastCalledWith(0);
    expect(tray.title).toBe('');
  });

  it('ignores events that do not change the count', async () => {
    const { api, controller } = await setup();
    await controller.start();
    const before = api.calls.length;
    api.emit({ type: 'rules-changed' });
    api.emit({ type: 'servers-changed' });
    await flush();
    expect(api.calls.length).toBe(before);
  });

  it('a slow older read never overwrites a newer one', async () => {
    const { tray, api, controller } = await setup();
    await controller.start();
    let releaseSlow!: () => void;
    const slow = new Promise<void>((r) => (releaseSlow = r));
    const original = api.listPending;
    api.listPending = async () => {
      await slow;
      return [];
    };
    const older = controller.refresh();
    api.listPending = async () => [pendingCall('x'), pendingCall('y'), pendingCall('z')];
    await controller.refresh();
    releaseSlow();
    await older;
    expect(tray.tooltip).toBe('Countersign — 3 calls waiting');
    api.listPending = original;
  });

  it('Pause sets the broker paused, and the tray says so', async () => {
    const { tray, api, controller } = await setup();
    await controller.start();
    expect(tray.item('pause').checked).toBe(false);
    tray.item('pause').click!();
    await flush();
    expect(api.calls).toContainEqual({ method: 'setPaused', args: [true] });
    expect(api.paused).toBe(true);
    expect(tray.item('pause').checked).toBe(true);
    expect(tray.tooltip).toBe('Countersign — Paused: every call is denied');
    tray.item('pause').click!();
    await flush();
    expect(api.calls).toContainEqual({ method: 'setPaused', args: [false] });
    expect(tray.item('pause').checked).toBe(false);
  });

  it('reflects a pause made elsewhere (the UI) through status-changed', async () => {
    const { tray, api, controller } = await setup();
    await controller.start();
    await api.setPaused(true);
    await flush();
    expect(tray.item('pause').checked).toBe(true);
  });

  it('keeps the old state when pausing fails', async () => {
    const onError = vi.fn();
    const tray = new FakeTray();
    const api = new FakeApi();
    const controller = new TrayController({ tray, api, setBadge: () => {}, openWindow: () => {}, quit: () => {}, notifications: toggle(), onError });
    await controller.start();
    api.failNext = new Error('broker gone');
    await controller.setPaused(true);
    expect(onError).toHaveBeenCalled();
    expect(tray.item('pause').checked).toBe(false);
  });

  it('Open, Quit, notifications and Start at login', async () => {
    const { tray, openWindow, quit, notifications, login, controller } = await setup();
    await controller.start();
    tray.item('open').click!();
    expect(openWindow).toHaveBeenCalled();
    tray.item('notifications').click!();
    await flush();
    expect(notifications.value).toBe(false);
    expect(tray.item('notifications').checked).toBe(false);
    tray.item('login').click!();
    await flush();
    expect(login.value).toBe(true);
    expect(tray.item('login').checked).toBe(true);
    tray.item('quit').click!();
    expect(quit).toHaveBeenCalled();
  });

  it('has no Start at login item where the app cannot register itself', async () => {
    const { tray, controller } = await setup({ loginItem: false });
    await controller.start();
    expect(tray.menu.map((i) => i.id)).toEqual(['status', 'sep-1', 'open', 'pause', 'notifications', 'sep-2', 'quit']);
  });

  it('stops listening on stop()', async () => {
    const { api, controller } = await setup();
    await controller.start();
    expect(api.listeners.size).toBe(1);
    controller.stop();
    expect(api.listeners.size).toBe(0);
  });

  it('status lines', () => {
    expect(statusLine({ pending: 0, paused: false })).toBe('No calls waiting');
    expect(statusLine({ pending: 1, paused: false })).toBe('1 call waiting');
    expect(statusLine({ pending: 4, paused: true })).toBe('Paused: every call is denied (4 waiting)');
  });
});
