// The CLI's one way to change anything: the running broker's API over its local socket, or, when no
// broker runs, the same core opened in-process for this one command (holding the data dir's lock, so
// no broker starts meanwhile). Either way the change takes the broker's path and is audited there.
import type { Socket } from 'node:net';
import type { CountersignApi } from '../../shared/api.js';
import { API_METHODS } from '../../shared/api-schema.js';
import { isResponse, isResult, type JsonRpcId, type JsonRpcMessage } from '../../shared/jsonrpc.js';
import { escapeControl } from '../../shared/escape.js';
import { ensureDataDir, socketPath } from '../broker/store/data-dir.js';
import { acquireInstanceLock } from '../broker/store/instance-lock.js';
import { LineTransport } from '../broker/wire/line-transport.js';
import { openSocket } from '../broker/relay-mode/connect/attached-upstream.js';
import { readSocketSecret, unreadableSecret } from '../broker/local/secret-file.js';
import { proveApiPeer } from '../broker/local/api-handshake.js';
import { explainDiskError, folderClosedText } from '../broker/explain/disk-error.js';

export type CoreApi = Omit<CountersignApi, 'subscribe'>;
export type CoreWhere = 'broker' | 'in-process';

/** The core refused an API call (unknown server, a hash that no longer matches…): its sentence is for the person. */
export class CoreRefusal extends Error {
  override name = 'CoreRefusal';
}

/** The API with every refusal as a CoreRefusal, whichever way the core was reached (a refused write with its fix). */
function refusalsAsCoreRefusal(api: CoreApi, dataDir: string): CoreApi {
  return Object.fromEntries(
    API_METHODS.map((m) => [
      m,
      (...args: unknown[]) =>
        (api[m] as (...a: unknown[]) => Promise<unknown>).apply(api, args).catch((err: unknown) => {
          throw new CoreRefusal(explainDiskError(err, dataDir)?.message ?? (err instanceof Error ? err.message : String(err)));
        }),
    ]),
  ) as unknown as CoreApi;
}

export async function withCore<T>(dataDir: string, fn: (api: CoreApi, where: CoreWhere) => Promise<T>): Promise<T> {
  const remote = await connectToBroker(dataDir);
  if (remote) {
    try {
      return await fn(refusalsAsCoreRefusal(remote.api, dataDir), 'broker');
    } finally {
      remote.close();
    }
  }
  ensureDataDir(dataDir);
  // Throws InstanceLockError when a broker holds the data dir but its socket did not answer.
  const lock = acquireInstanceLock(dataDir);
  // Loaded only here: with a broker running, a command needs none of it (and starts faster).
  const { Broker } = await import('../broker/core/broker.js');
  const broker = new Broker({ dataDir, onWarning: (text) => process.stderr.write(`countersign: ${escapeControl(text)}\n`) });
  try {
    return await fn(refusalsAsCoreRefusal(broker.apiFor('cli'), dataDir), 'in-process');
  } finally {
    await broker.close();
    lock.release();
  }
}

/**
 * The running broker's API, or undefined when no broker listens for this data dir. The CLI proves it
 * may use it with this run's socket secret (local/api-handshake.ts); a refusal is a CoreRefusal.
 */
async function connectToBroker(dataDir: string): Promise<{ api: CoreApi; close(): void } | undefined> {
  const path = socketPath(dataDir);
  let socket: Socket;
  try {
    socket = await openSocket(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED') return undefined;
    if (code === 'EACCES' || code === 'EPERM') {
      // Often the folder itself, not the socket: another user's data folder.
      const closed = folderClosedText(dataDir);
      if (closed) throw new CoreRefusal(closed);
      throw new CoreRefusal(`this process may not reach Countersign's broker at ${path} (${code}). Run it as the user who runs Countersign.`);
    }
    throw err;
  }
  socket.on('error', () => undefined);
  const secret = readSocketSecret(dataDir);
  if (!secret.ok) {
    socket.destroy();
    throw new CoreRefusal(`Countersign's broker is running for ${dataDir}, but ${unreadableSecret(secret)}`);
  }
  try {
    await proveApiPeer(socket, secret.secret.api);
  } catch (err) {
    socket.destroy();
    throw new CoreRefusal((err as Error).message);
  }
  const lines = new LineTransport({ input: socket, output: socket, onCloseStreams: () => socket.end() });
  const waiting = new Map<JsonRpcId, { resolve(v: unknown): void; reject(e: Error): void }>();
  lines.onmessage = (m: JsonRpcMessage) => {
    if (!isResponse(m)) return;
    const w = waiting.get(m.id as JsonRpcId);
    if (!w) return;
    waiting.delete(m.id as JsonRpcId);
    if (isResult(m)) w.resolve(m.result.value);
    else w.reject(new Error(m.error.message));
  };
  lines.onclose = () => {
    for (const w of waiting.values()) w.reject(new Error('the broker closed the connection'));
    waiting.clear();
  };
  await lines.start();
  socket.resume();
  let nextId = 1;
  const call = (method: string, args: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      lines.send({ jsonrpc: '2.0', id, method, params: { args } }).catch(reject);
    });
  const api = Object.fromEntries(API_METHODS.map((m) => [m, (...args: unknown[]) => call(m, args)])) as unknown as CoreApi;
  return { api, close: () => void lines.close() };
}
