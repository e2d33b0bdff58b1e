// The one map of IPC channels, shared by the main process and the preload. No Electron import here:
// both sides (and the unit tests) load it as plain data.

export const IPC = {
  /** invoke(method, args) → IpcReply: a CountersignApi method, checked by the main-process gatekeeper. */
  api: 'countersign:api',
  /** invoke(method, args) → IpcReply: a DesktopApi method (links, desktop settings). */
  desktop: 'countersign:desktop',
  /** invoke() → IpcReply: the page is listening; main sends what it queued. */
  rendererReady: 'countersign:renderer-ready',
  /** main → renderer: one BrokerEvent. */
  event: 'countersign:event',
  /** main → renderer: the id of a pending call the person asked to see (a notification click). */
  openCall: 'countersign:open-call',
} as const;

export type IpcChannel = (typeof IPC)[keyof typeof IPC];

/**
 * Every invoke answers with this envelope rather than throwing: Electron rewrites the message of an
 * error thrown in a handler, and the renderer should read the broker's sentence unchanged.
 */
export type IpcReply<T = unknown> = { ok: true; value: T } | { ok: false; error: string };

export function isIpcReply(value: unknown): value is IpcReply {
  if (typeof value !== 'object' || value === null) return false;
  const reply = value as { ok?: unknown; error?: unknown };
  return reply.ok === true || (reply.ok === false && typeof reply.error === 'string');
}
