// Checks every request to the broker's loopback HTTP server must pass before it reaches an endpoint:
// Host (DNS rebinding), Origin (browser pages), bearer token (other local processes), and a capped body read.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { readJson, type Refused } from '../wire/jsonrpc-guard.js';

/** 32 MiB: tool arguments can carry files, but an unbounded body would let any caller exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface Rejection {
  ok: false;
  status: number;
  message: string;
  /** JSON-RPC error code for the body; -32000 when absent. */
  code?: number;
  /** Extra response headers, e.g. WWW-Authenticate. */
  headers?: Record<string, string>;
  /** A body refused as a message: what it held, for the log (protocol/refused-calls.ts). */
  refused?: Refused;
}

export type GuardResult = { ok: true } | Rejection;

/** `bytes`: the body as it came (valid UTF-8). */
export type BodyResult = { ok: true; value: unknown; bytes: Buffer } | Rejection;

export interface GuardOptions {
  allowedHosts: string[];
  allowedOrigins: string[];
  token: string;
}

/** The Host values a loopback server on `port` answers to. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** The Origin values of pages served by that same loopback server (the only browser origins allowed). */
export function loopbackOrigins(port: number): string[] {
  return loopbackHosts(port).map((host) => `http://${host}`);
}

// Header values end up in error messages: keep them short and printable.
function shown(value: string): string {
  const clean = value.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 100 ? `${clean.slice(0, 100)}...` : clean;
}

function reject(status: number, message: string, headers?: Record<string, string>): Rejection {
  return headers ? { ok: false, status, message, headers } : { ok: false, status, message };
}

/** A rebinding page reaches us with its own hostname in Host, so only exact loopback names pass. */
export function checkHost(hostHeader: string | undefined, allowedHosts: string[]): GuardResult {
  if (!hostHeader) return reject(403, 'Forbidden: missing Host header');
  const host = hostHeader.trim().toLowerCase(); // host names are case-insensitive
  if (allowedHosts.some((allowed) => allowed.toLowerCase() === host)) return { ok: true };
  return reject(403, `Forbidden: Host header '${shown(hostHeader)}' is not allowed`);
}

/** Non-browser clients send no Origin; a browser always does on cross-origin requests, so it must match. */
export function checkOrigin(originHeader: string | undefined, allowedOrigins: string[]): GuardResult {
  if (originHeader === undefined) return { ok: true };
  const origin = originHeader.trim().toLowerCase();
  if (allowedOrigins.some((allowed) => allowed.toLowerCase() === origin)) return { ok: true };
  return reject(403, `Forbidden: Origin '${shown(originHeader)}' is not allowed`);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Missing and wrong tokens are both 401 (RFC 6750: invalid_token is 401), so a caller learns nothing
 * beyond "not authorised". Comparing sha256 digests keeps the comparison constant-time and length-blind.
 */
export function checkBearer(authorizationHeader: string | undefined, expectedToken: string): GuardResult {
  if (!authorizationHeader) {
    return reject(401, 'Unauthorized: missing bearer token', { 'WWW-Authenticate': 'Bearer' });
  }
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorizationHeader);
  if (!match) {
    return reject(401, 'Unauthorized: Authorization header must be "Bearer <token>"', {
      'WWW-Authenticate': 'Bearer error="invalid_request"',
    });
  }
  const presented = match[1] ?? '';
  // An empty configured token would be a broker bug; never let it authorise anything.
  const same = expectedToken.length > 0 && timingSafeEqual(digest(presented), digest(expectedToken));
  if (same) return { ok: true };
  return reject(401, 'Unauthorized: invalid bearer token', { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** All three checks in the order the broker wants them: Host, then Origin, then token. */
export function guardRequest(req: IncomingMessage, opts: GuardOptions): GuardResult {
  const host = checkHost(single(req.headers.host), opts.allowedHosts);
  if (!host.ok) return host;
  const origin = checkOrigin(single(req.headers.origin), opts.allowedOrigins);
  if (!origin.ok) return origin;
  return checkBearer(single(req.headers.authorization), opts.token);
}

/** Past this much unread body, or this long, a refused upload's connection is dropped. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

/**
 * Writes a rejection as a JSON-RPC error with id null, then: `keep` the connection; `close` it without
 * reading more (a client that failed the checks gets nothing read); or `drain` the unread body of an
 * upload that was too large, within bounds and kept nowhere, so the client, still sending, reads this
 * answer instead of a connection reset.
 */
export function sendRejection(res: ServerResponse, rejection: Rejection, after: 'keep' | 'close' | 'drain' = 'keep'): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(errorResponse(null, rejection.code ?? -32000, rejection.message));
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    ...rejection.headers,
  };
  if (after === 'close') headers.Connection = 'close';
  res.writeHead(rejection.status, headers);
  res.end(body);
  if (after === 'drain' && !res.req.complete) drainThenDrop(res.req);
}

function drainThenDrop(req: IncomingMessage): void {
  let dropped = 0;
  const drop = (): void => void req.socket.destroy();
  const timer = setTimeout(drop, DRAIN_MAX_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_MAX_BYTES) drop();
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

function tooLarge(maxBytes: number, head = ''): Rejection {
  const message = `Payload Too Large: request body exceeds the ${maxBytes}-byte limit`;
  return {
    ...reject(413, message),
    refused: { code: ErrorCode.ServerUnavailable, reason: `the message is larger than the ${maxBytes}-byte limit`, id: null, head },
  };
}

/**
 * Reads and parses a JSON body, holding at most `maxBytes` in memory. Past the cap it stops reading at
 * once (the caller answers with `drain`, which drops the rest unkept). The bytes are checked as
 * jsonrpc-guard.ts checks a line: strict UTF-8, no byte order mark, and (`client`: an MCP client's
 * message) no key repeated in the envelope.
 */
export function readJsonBody(req: IncomingMessage, maxBytes: number = DEFAULT_MAX_BODY_BYTES, client = false): Promise<BodyResult> {
  const declared = Number(single(req.headers['content-length']));
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(tooLarge(maxBytes));

  return new Promise<BodyResult>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;

    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        // Its first bytes are kept for the log (the tool's name, when they give it); the rest is dropped.
        const head = Buffer.concat([...chunks.slice(0, 4), chunk])
          .subarray(0, 4096)
          .toString('latin1');
        chunks.length = 0;
        req.pause();
        settle(tooLarge(maxBytes, head));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      // Invalid UTF-8 is refused, never turned into U+FFFD and forwarded (as on stdio).
      const bytes = Buffer.concat(chunks, size);
      const read = readJson(bytes, client);
      if (read.ok) return settle({ ok: true, value: read.value, bytes });
      const { ok: _ok, ...refused } = read;
      const message = read.reason.startsWith('invalid JSON: ')
        ? `Parse error: ${read.reason.slice('invalid JSON: '.length)}`
        : `${read.code === ErrorCode.ParseError ? 'Parse error' : 'Invalid Request'}: ${read.reason}`;
      settle({ ok: false, status: 400, code: read.code, message, refused });
    };
    const onError = (error: Error): void => {
      settle(reject(400, `Bad Request: could not read the request body: ${error.message}`));
    };
    const onClose = (): void => {
      if (!req.complete) settle(reject(400, 'Bad Request: the client aborted the request body'));
    };

    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
