// Server-sent events on an HTTP response, written one way by both MCP HTTP transports (mcp-http-session.ts
// for sessions, stateless-transport.ts for 2026-07-28 clients) and the UI's event stream (api-bridge.ts):
// the headers, each message as one event, and keep-alive comments while the stream is idle.
import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';

export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/**
 * A POST's SSE headers wait this long for its first event: a quick answer then leaves in one write with
 * them (one wake-up of the client instead of three). A slow one (a person deciding) gets them after this.
 */
export const HEADERS_WAIT_MS = 200;

const SSE_HEAD = Buffer.from('event: message\ndata: ');
const SSE_TAIL = Buffer.from('\n');

/** Starts an event stream: status and headers (with `headers` first), not yet flushed. */
export function openEventStream(res: ServerResponse, headers?: Record<string, string>, cacheControl = 'no-cache, no-transform'): void {
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'text/event-stream',
    'Cache-Control': cacheControl,
    Connection: 'keep-alive',
  });
}

/** One message as an event (MCP's are all `message`). */
export function sseEvent(message: JsonRpcMessage | object, event = 'message'): string {
  return `event: ${event}\ndata: ${JSON.stringify(message)}\n\n`;
}

/** One message given as its JSON bytes, newline ended (a result passed through), as the same event. */
export function sseEventBytes(json: Buffer): Buffer {
  return Buffer.concat([SSE_HEAD, json, SSE_TAIL]);
}

/** Whether the response can still be written to. */
export function isOpen(res: ServerResponse): boolean {
  return !res.writableEnded && !res.destroyed;
}

/** Writes to the stream while it is open; a closed one drops it. */
export function writeEvent(res: ServerResponse, event: string | Buffer): void {
  if (isOpen(res)) res.write(event);
}

/**
 * SSE comments are ignored by clients but keep idle proxies and sockets from dropping the stream, every
 * `everyMs` (0: none). With `headersMs`, headers still held back go out first, after that long. Returns
 * how to stop it.
 */
export function keepAlive(res: ServerResponse, everyMs: number, headersMs?: number, comment = 'keep-alive'): () => void {
  let timer: NodeJS.Timeout | undefined;
  const line = `: ${comment}\n\n`;
  const every = (): void => {
    if (!(everyMs > 0)) return;
    timer = setInterval(() => isOpen(res) && res.write(line), everyMs);
    timer.unref();
  };
  if (headersMs === undefined) every();
  else {
    timer = setTimeout(() => {
      if (isOpen(res)) res.flushHeaders();
      every();
    }, headersMs);
    timer.unref();
  }
  return () => clearTimeout(timer);
}
