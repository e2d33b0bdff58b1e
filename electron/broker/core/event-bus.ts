// The broker's events, to every surface that listens (UI, desktop app, CLI watchers). Anything but the
// queue and the log may change a decision, so such an event also revokes `connect`'s leases (relay mode
// decides from them) and clears what was kept for decisions (the path scope): `connect` must ask again.
import type { BrokerEvent } from '../../../shared/api.js';

const QUIET_EVENTS: ReadonlySet<BrokerEvent['type']> = new Set([
  'pending-added',
  'pending-removed',
  'log-appended',
  'clients-changed',
  'launch-requests-changed',
]);

export interface EventBusOptions {
  /** Ends every lease `connect` holds (its sessions decide again through the broker). */
  revokeLeases: () => void;
  /** Drops what was kept for decisions. */
  clearCaches: () => void;
}

export class EventBus {
  private readonly listeners = new Set<(e: BrokerEvent) => void>();
  /** Bumped whenever `connect` leases are revoked. */
  private epoch = 0;

  constructor(private readonly opts: EventBusOptions) {}

  get leaseEpoch(): number {
    return this.epoch;
  }

  get listening(): boolean {
    return this.listeners.size > 0;
  }

  emit(event: BrokerEvent): void {
    if (!QUIET_EVENTS.has(event.type)) {
      this.epoch += 1;
      this.opts.revokeLeases();
      this.opts.clearCaches();
    }
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // One broken listener must not stop the others.
      }
    }
  }

  subscribe(listener: (event: BrokerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  clear(): void {
    this.listeners.clear();
  }
}
