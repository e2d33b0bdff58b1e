// How long a client is likely to wait for a decision, and why a wait ended before one. The card must
// not promise the approval timeout when the agent gives up first (the MCP SDK's default is 60 s).
import type { ClientWait } from '../../../shared/api.js';

/** The 1.x and 2.x MCP SDKs give up on a request after this long, unless the client set its own. */
export const SDK_DEFAULT_TIMEOUT_MS = 60_000;

/** Why a call stopped waiting before anyone decided: the reason its signal was aborted with. */
export type WaitEnd = { by: 'client'; reason?: string } | { by: 'session'; why: string };

export function waitEndOf(signal: AbortSignal): WaitEnd {
  const r = signal.reason as Partial<WaitEnd> | undefined;
  if (r && r.by === 'client') return { by: 'client', reason: typeof r.reason === 'string' ? r.reason.slice(0, 300) : undefined };
  if (r && r.by === 'session' && typeof r.why === 'string') return { by: 'session', why: r.why.slice(0, 300) };
  return { by: 'session', why: 'the session ended' };
}

/** What clients showed of their patience: how long each (by its name) waited before it cancelled on a timeout. */
export class ClientPatience {
  private readonly observed = new Map<string, number>();

  estimate(client: string | undefined, createdAt: number, progress: boolean): ClientWait {
    const seen = client === undefined ? undefined : this.observed.get(client);
    if (seen !== undefined) return { givesUpAt: createdAt + seen, basis: 'observed', progress };
    // A client that asked for progress may restart its clock on each notification (SDK
    // resetTimeoutOnProgress); one that does not still stops at its own timeout.
    return { givesUpAt: createdAt + SDK_DEFAULT_TIMEOUT_MS, basis: progress ? 'progress' : 'sdk-default', progress };
  }

  /** The client cancelled a waiting call: when it said it timed out, that is how long it waits. */
  stopped(client: string | undefined, waitedMs: number, reason: string | undefined): void {
    if (client === undefined || !reason || !/time/i.test(reason)) return;
    if (this.observed.size > 200) this.observed.clear();
    this.observed.set(client, Math.max(1000, Math.round(waitedMs / 1000) * 1000));
  }
}
