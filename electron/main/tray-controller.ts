// What the tray shows and does: the number of pending calls (tooltip, badge, first menu line), and the
// menu — Open, Pause, notifications, Start at login, Quit. The shell turns the menu spec into an
// Electron Menu; this module never touches Electron.
import type { BrokerEvent, CountersignApi } from '../../shared/api.js';

export interface MenuItemSpec {
  id: string;
  label: string;
  type?: 'normal' | 'checkbox' | 'separator';
  checked?: boolean;
  enabled?: boolean;
  click?: () => void;
}

/** The part of Electron's Tray this controller uses (setTitle exists on macOS only). */
export interface TrayLike {
  setToolTip(text: string): void;
  setContextMenu(items: MenuItemSpec[]): void;
  setTitle?(text: string): void;
}

/** A yes/no setting the tray shows as a checkbox. */
export interface Toggle {
  get(): boolean;
  set(on: boolean): void | Promise<void>;
}

export interface TrayControllerOptions {
  tray: TrayLike;
  api: Pick<CountersignApi, 'listPending' | 'getStatus' | 'setPaused' | 'subscribe'>;
  /** app.setBadgeCount where the platform has a badge; a no-op elsewhere. */
  setBadge(count: number): void;
  openWindow(): void;
  quit(): void;
  notifications: Toggle;
  /** Absent where the app cannot register itself (an unpackaged dev run). */
  startAtLogin?: Toggle;
  onError?(error: unknown): void;
}

export interface TrayState {
  pending: number;
  paused: boolean;
}

const REFRESH_ON: ReadonlySet<BrokerEvent['type']> = new Set(['pending-added', 'pending-removed', 'status-changed']);

export class TrayController {
  #state: TrayState = { pending: 0, paused: false };
  #unsubscribe?: () => void;
  #generation = 0;
  readonly #opts: TrayControllerOptions;

  constructor(opts: TrayControllerOptions) {
    this.#opts = opts;
  }

  get state(): TrayState {
    return { ...this.#state };
  }

  /** Subscribes first, then reads, so no change between the two is missed. */
  async start(): Promise<void> {
    this.#unsubscribe = this.#opts.api.subscribe((event) => {
      if (REFRESH_ON.has(event.type)) void this.refresh();
    });
    this.render();
    await this.refresh();
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Re-reads the count and pause state; an older read that finishes late never overwrites a newer one. */
  async refresh(): Promise<void> {
    const generation = ++this.#generation;
    try {
      const [pending, status] = await Promise.all([this.#opts.api.listPending(), this.#opts.api.getStatus()]);
      if (generation !== this.#generation) return;
      this.#state = { pending: pending.length, paused: status.paused };
      this.render();
    } catch (error) {
      this.#opts.onError?.(error);
    }
  }

  async setPaused(paused: boolean): Promise<void> {
    try {
      await this.#opts.api.setPaused(paused);
    } catch (error) {
      this.#opts.onError?.(error);
    }
    await this.refresh();
  }

  /** The menu as it is now; exposed for tests and rebuilt on every change. */
  menu(): MenuItemSpec[] {
    const { notifications, startAtLogin } = this.#opts;
    const items: MenuItemSpec[] = [
      { id: 'status', label: statusLine(this.#state), enabled: false },
      { id: 'sep-1', label: '', type: 'separator' },
      { id: 'open', label: 'Open Countersign', click: () => this.#opts.openWindow() },
      {
        id: 'pause',
        label: 'Pause (deny every call)',
        type: 'checkbox',
        checked: this.#state.paused,
        click: () => void this.setPaused(!this.#state.paused),
      },
      {
        id: 'notifications',
        label: 'Notify me of new calls',
        type: 'checkbox',
        checked: notifications.get(),
        click: () => void this.#toggle(notifications),
      },
    ];
    if (startAtLogin) {
      items.push({ id: 'login', label: 'Start at login', type: 'checkbox', checked: startAtLogin.get(), click: () => void this.#toggle(startAtLogin) });
    }
    items.push({ id: 'sep-2', label: '', type: 'separator' }, { id: 'quit', label: 'Quit Countersign', click: () => this.#opts.quit() });
    return items;
  }

  async #toggle(toggle: Toggle): Promise<void> {
    try {
      await toggle.set(!toggle.get());
    } catch (error) {
      this.#opts.onError?.(error);
    }
    this.render();
  }

  /** Redraws from the current state (e.g. after a toggle changed elsewhere). */
  render(): void {
    const { tray, setBadge } = this.#opts;
    const { pending } = this.#state;
    tray.setToolTip(`Countersign — ${statusLine(this.#state)}`);
    tray.setTitle?.(pending > 0 ? String(pending) : '');
    setBadge(pending);
    tray.setContextMenu(this.menu());
  }
}

export function statusLine({ pending, paused }: TrayState): string {
  if (paused) return pending > 0 ? `Paused: every call is denied (${pending} waiting)` : 'Paused: every call is denied';
  if (pending === 0) return 'No calls waiting';
  return pending === 1 ? '1 call waiting' : `${pending} calls waiting`;
}
