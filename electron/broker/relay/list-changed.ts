// Bursts of tools/list_changed are coalesced: the first passes at once, the rest of the window become one
// more at its end, and the session re-lists the tools once per window to compare them with the record.
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';

export const LIST_CHANGED_WINDOW_MS = 250;

export interface ListChangedHost {
  isClosed(): boolean;
  /** The known definitions may be out of date. */
  markStale(): void;
  deliver(message: JsonRpcMessage): void;
  /** Re-lists the tools (and tells whoever records them). */
  refresh(): void;
}

export class ListChanged {
  private timer?: NodeJS.Timeout;
  private pending?: JsonRpcMessage;
  private again = false;

  constructor(private readonly host: ListChangedHost) {}

  /** The server said its tools changed; without a message: a subscription's notice, already delivered (only the re-listing is coalesced). */
  changed(message?: JsonRpcMessage): void {
    this.host.markStale();
    if (this.timer) {
      if (message) this.pending = message;
      else this.again = true;
      return;
    }
    if (message) this.host.deliver(message);
    this.host.refresh();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const next = this.pending;
      const again = this.again;
      this.pending = undefined;
      this.again = false;
      if ((next || again) && !this.host.isClosed()) this.changed(next);
    }, LIST_CHANGED_WINDOW_MS);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
