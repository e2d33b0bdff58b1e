// One OS notification per new pending call, unless the person turned them off. Clicking one opens
// that call; a call that is decided or expires takes its notification away.
import type { CountersignApi, PendingCall } from '../../shared/api.js';
import { notificationContent } from '../../shared/notification-content.js';

export { notificationContent };

/** The part of Electron's Notification used here. */
export interface NotificationLike {
  show(): void;
  close(): void;
  on(event: 'click', listener: () => void): unknown;
}

export interface NotifierOptions {
  api: Pick<CountersignApi, 'subscribe'>;
  create(content: { title: string; body: string }): NotificationLike;
  /** The person's setting, read for every call (so turning it off takes effect at once). */
  enabled(): boolean;
  /** False where the OS has no notification service. */
  supported?(): boolean;
  openCall(id: string): void;
  onError?(error: unknown): void;
}

/** Electron drops a notification's click handler once the object is garbage-collected: keep references. */
const MAX_KEPT = 100;

export class Notifier {
  readonly #shown = new Map<string, NotificationLike>();
  #unsubscribe?: () => void;
  readonly #opts: NotifierOptions;

  constructor(opts: NotifierOptions) {
    this.#opts = opts;
  }

  get showing(): number {
    return this.#shown.size;
  }

  start(): void {
    this.#unsubscribe = this.#opts.api.subscribe((event) => {
      if (event.type === 'pending-added') this.#notify(event.call);
      else if (event.type === 'pending-removed') this.#dismiss(event.id);
    });
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.clear();
  }

  /** Takes every notification away (e.g. when the person turns them off). */
  clear(): void {
    for (const id of [...this.#shown.keys()]) this.#dismiss(id);
  }

  #notify(call: PendingCall): void {
    if (!this.#opts.enabled() || this.#opts.supported?.() === false || this.#shown.has(call.id)) return;
    try {
      const notification = this.#opts.create(notificationContent(call));
      notification.on('click', () => {
        this.#shown.delete(call.id);
        this.#opts.openCall(call.id);
      });
      this.#shown.set(call.id, notification);
      if (this.#shown.size > MAX_KEPT) {
        const oldest = this.#shown.keys().next().value;
        if (oldest !== undefined) this.#dismiss(oldest);
      }
      notification.show();
    } catch (error) {
      this.#opts.onError?.(error);
    }
  }

  #dismiss(id: string): void {
    const notification = this.#shown.get(id);
    if (!notification) return;
    this.#shown.delete(id);
    try {
      notification.close();
    } catch {
      // Already gone on the OS side.
    }
  }
}
