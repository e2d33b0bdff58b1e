// The checks every JSON-RPC line from a client passes before anything acts on it, the same on stdio
// (`connect`) as over HTTP: valid UTF-8 (checked on the bytes, never re-encoded as U+FFFD), one JSON
// object (batches were removed in MCP 2025-06-18), a well-formed envelope, and a usable id. A line that
// fails gets an error the client can match — with its id when one can be read, else `"id": null` —
// and is never forwarded. Small and pure, so the fast lane can call it too.
import { checkEnvelope, errorResponse, ErrorCode, type JsonRpcMessage } from '../../shared/jsonrpc.js';

export type GuardedLine =
  | { ok: true; message: JsonRpcMessage }
  /** `empty`: a blank line, skipped without an answer. */
  | { ok: false; empty: true }
  | { ok: false; empty?: false; code: number; reason: string; id: string | number | null };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of `bytes` if they are valid UTF-8, else undefined. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Finds `"id": <value>` near the start of a line without parsing it all (for lines that do not parse). */
export function sniffId(head: string): string | number | null {
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/.exec(head);
  if (!m?.[1]) return null;
  try {
    const v: unknown = JSON.parse(m[1]);
    return typeof v === 'string' || typeof v === 'number' ? v : null;
  } catch {
    return null;
  }
}

const usableId = (v: unknown): string | number | null => (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null);

/** Checks one line of bytes from a client (or a server): the message, or why it is refused. */
export function guardLine(bytes: Uint8Array): GuardedLine {
  const text = decodeUtf8(bytes);
  if (text === undefined) {
    // The id may still be readable (it is ASCII): answering it lets the client match the refusal.
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('latin1');
    return { ok: false, code: ErrorCode.ParseError, reason: 'the message is not valid UTF-8', id: sniffId(head) };
  }
  if (text.trim() === '') return { ok: false, empty: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, code: ErrorCode.ParseError, reason: `invalid JSON: ${(err as Error).message}`, id: sniffId(text.slice(0, 4096)) };
  }
  if (Array.isArray(value)) {
    return { ok: false, code: ErrorCode.InvalidRequest, reason: 'batches are not supported (JSON-RPC batching was removed from MCP in 2025-06-18): send one message per line', id: null };
  }
  const checked = checkEnvelope(value);
  const id = typeof value === 'object' && value !== null && 'id' in value ? usableId((value as { id: unknown }).id) : null;
  if (!checked.ok) return { ok: false, code: ErrorCode.InvalidRequest, reason: checked.reason, id };
  return checked;
}

/** The answer to a refused line: `{"jsonrpc":"2.0","id":<id or null>,"error":{…}}`. */
export function refusalFor(bad: { code: number; reason: string; id: string | number | null }): JsonRpcMessage {
  return errorResponse(bad.id, bad.code, `Countersign refused a message: ${bad.reason}`);
}
