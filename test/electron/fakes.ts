// Stand-ins for Electron objects and the broker API, for the shell's unit tests. Never imports 'electron'.
import type { BrokerEvent, BrokerStatus, DecideResult, PendingCall } from '../../shared/api.js';
import type { IpcMainLike } from '../../electron/main/gatekeeper.js';
import type { IpcSenderLike } from '../../electron/main/sender-check.js';

export const APP_URL = 'app://countersign/index.html';

export function pendingCall(id: string, over: Partial<PendingCall> = {}): PendingCall {
  return {
    id,
    server: 'fs',
    serverTrusted: false,
    tool: 'write_file',
    arguments: { path: '/tmp/x' },
    reasons: [{ code: 'untrusted-server', severity: 'warning', message: 'fs is not trusted yet.' }],
    hints: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
      supplied: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    preview: true,
    findings: [],
    client: { name: 'Claude', session: 's1' },
    createdAt: 0,
    expiresAt: 120_000,
    ...over,
  };
}

/** The broker API parts the shell uses, with an event source the test drives. */
export class FakeApi {
  pending: PendingCall[] = [];
  paused = false;
  readonly listeners = new Set<(e: BrokerEvent) => void>();
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  failNext?: Error;

  emit(event: BrokerEvent): void {
    for (const l of [...this.listeners]) l(event);
  }

  subscribe = (listener: (e: BrokerEvent) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  listPending = async (): Promise<PendingCall[]> => {
    this.calls.push({ method: 'listPending', args: [] });
    return [...this.pending];
  };

  getStatus = async (): Promise<BrokerStatus> => {
    this.calls.push({ method: 'getStatus', args: [] });
    return {
      version: '0',
      dataDir: '/d',
      warnings: [],
      connectCommand: 'x',
      connectLaunch: { command: '/x', args: ['connect', '<server>'] },
      paused: this.paused,
    };
  };

  setPaused = async (paused: boolean): Promise<void> => {
    this.calls.push({ method: 'setPaused', args: [paused] });
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = undefined;
      throw e;
    }
    this.paused = paused;
    this.emit({ type: 'status-changed' });
  };

  decide = async (id: string, decision: unknown): Promise<DecideResult> => {
    this.calls.push({ method: 'decide', args: [id, decision] });
    const i = this.pending.findIndex((c) => c.id === id);
    if (i < 0) return { ok: false, error: 'not-pending' };
    this.pending.splice(i, 1);
    return { ok: true, forwarded: true };
  };

  addServer = async (name: string, config: unknown): Promise<void> => {
    this.calls.push({ method: 'addServer', args: [name, config] });
    if (name === 'taken') throw new Error('A server named "taken" already exists.');
  };
}

type Handler = (event: IpcSenderLike, ...args: unknown[]) => unknown;

export class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Handler>();

  handle(channel: string, listener: Handler): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }

  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }

  async invoke(channel: string, event: IpcSenderLike, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`no handler for ${channel}`);
    return h(event, ...args);
  }
}

export function senderEvent(over: { id?: number; url?: string; parent?: unknown; frame?: null } = {}): IpcSenderLike {
  return {
    sender: { id: over.id ?? 1 },
    senderFrame: over.frame === null ? null : { url: over.url ?? APP_URL, parent: over.parent ?? null },
  };
}

/** Lets queued promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
