// How calls ended, sent to the broker's audit log in small batches: one write per REPORT_DELAY_MS instead
// of one per call keeps the broker's wake-ups (and CPU) off the client's path. Flushed on close and on
// SIGTERM, SIGINT and SIGHUP; if `connect` dies without saying goodbye, the broker warns that the last
// moments of leased calls may be missing from the log.
import type { ControlChannel } from './control-channel.js';
import type { Report } from './protocol.js';

export const REPORT_DELAY_MS = 20;
/** A batch never holds more calls than this, which bounds its size (each call's arguments ≤ 32 MiB). */
export const MAX_REPORT_ITEMS = 16;

export class ReportQueue {
  private items: Report[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly channel: ControlChannel, private readonly delayMs = REPORT_DELAY_MS) {}

  push(item: Report): void {
    this.items.push(item);
    if (this.items.length >= MAX_REPORT_ITEMS) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.items.length) return;
    this.channel.notify('report', { items: this.items.splice(0) });
  }
}
