// The typed API on the local socket, for the CLI: the same methods, the same argument schemas and the
// same broker as the UI's bridges, so every change of state takes one path and is audited there.
// After the `{ api: true }` handshake the socket carries JSON-RPC: params are `{ args: [...] }`.
import type { Socket } from 'node:net';
import type { CountersignApi } from '../../../shared/api.js';
import { isApiMethod, parseApiArgs } from '../../../shared/api-schema.js';
import { ErrorCode, errorResponse, isRequest } from '../../../shared/jsonrpc.js';
import { badLineResponse, LineTransport } from '../wire/line-transport.js';
import { explainDiskError } from '../explain/disk-error.js';

/** API calls carry no tool arguments: a small line cap keeps a confused peer cheap. */
const MAX_API_LINE_BYTES = 4 * 1024 * 1024;

export function serveLocalApi(socket: Socket, api: CountersignApi): void {
  const lines: LineTransport = new LineTransport({
    input: socket,
    output: socket,
    maxMessageBytes: MAX_API_LINE_BYTES,
    onBadLine: (bad) => void lines.send(badLineResponse(bad)).catch(() => undefined),
    onCloseStreams: () => socket.end(),
  });
  lines.onmessage = (message) => {
    if (!isRequest(message)) return;
    const { id, method } = message;
    const reply = (m: Parameters<LineTransport['send']>[0]): void => void lines.send(m).catch(() => undefined);
    if (!isApiMethod(method)) {
      reply(errorResponse(id, ErrorCode.MethodNotFound, `unknown API method ${JSON.stringify(method)}`));
      return;
    }
    const parsed = parseApiArgs(method, message.params?.args ?? []);
    if (!parsed.ok) {
      reply(errorResponse(id, ErrorCode.InvalidParams, parsed.error));
      return;
    }
    const fn = api[method] as (...args: unknown[]) => Promise<unknown>;
    fn.apply(api, parsed.args).then(
      (value) => reply({ jsonrpc: '2.0', id, result: { value: value ?? null } }),
      // A refused write (read-only, full disk) as its sentence with the fix, not the bare errno text.
      (err: unknown) => reply(errorResponse(id, ErrorCode.InternalError, explainDiskError(err)?.message ?? (err instanceof Error ? err.message : String(err)))),
    );
  };
  void lines.start();
  socket.resume();
}
