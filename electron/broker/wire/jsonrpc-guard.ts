// The checks every JSON-RPC line from a client passes before anything acts on it, the same on stdio
// (`connect`, the broker's pipe) as over HTTP: valid UTF-8 (checked on the bytes, never re-encoded as
// U+FFFD), no byte order mark, one JSON object (batches were removed in MCP 2025-06-18), no key repeated
// in the envelope, a well-formed envelope, and a usable id. Parsers disagree on a BOM (skipped or an
// error) and on a repeated key (the first, the last, or an error): such input is refused, never read one
// way here and another by the server. A line that fails gets an error the client can match — with its id
// when one can be read, else `"id": null` — and is never forwarded. Small and pure, so the fast lane
// (and `connect`, which must not load node:crypto) can call it too.
import { checkEnvelope, errorResponse, ErrorCode, type JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { repeatedEnvelopeKey } from './unambiguous-json.js';
import { sniffId } from './id-sniff.js';

/** A message refused before it was read as one: why, and what of it can be told (refused-calls.ts). */
export interface Refused {
  code: number;
  reason: string;
  id: string | number | null;
  /** The JSON value, when the bytes parsed as one and mean the same to every parser; absent: unreadable. */
  read?: { value: unknown };
  /** Its first bytes as text (for the tool's name when it could not be read). */
  head: string;
}

export type GuardedLine =
  | { ok: true; message: JsonRpcMessage }
  /** `empty`: a blank line, skipped without an answer. */
  | { ok: false; empty: true }
  | ({ ok: false; empty?: false } & Refused);

// ignoreBOM: a byte order mark is kept in the text (the default drops it unseen), so it is refused below.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = 0xfeff;
const HEAD_CHARS = 4096;

/** The text of `bytes` if they are valid UTF-8 (a byte order mark kept), else undefined. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

const usableId = (v: unknown): string | number | null => (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null);

function latin1Head(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, HEAD_CHARS)).toString('latin1');
}

function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Where a byte order mark sits in `text`: first, or after JSON whitespace (which no parser skips); -1 if not there. */
function bomAt(text: string): number {
  let i = 0;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n')) i++;
  return text.charCodeAt(i) === BOM ? i : -1;
}

/**
 * One JSON value from a client's bytes: strict UTF-8, no byte order mark, JSON.parse, and (for a client's
 * message) no key repeated in the envelope. The value, or why it is refused.
 */
export function readJson(bytes: Uint8Array, client = false): ReadJson {
  return readDecoded(bytes, decodeUtf8(bytes), client);
}

type ReadJson = { ok: true; value: unknown; head: string } | ({ ok: false } & Refused);

function readDecoded(bytes: Uint8Array, text: string | undefined, client: boolean): ReadJson {
  if (text === undefined) {
    // The id may still be readable (it is ASCII): answering it lets the client match the refusal.
    const head = latin1Head(bytes);
    const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const reason = utf16 ? 'the message is UTF-16 (it starts with a UTF-16 byte order mark): send UTF-8' : 'the message is not valid UTF-8';
    return { ok: false, code: ErrorCode.ParseError, reason, id: sniffId(head), head };
  }
  const head = text.slice(0, HEAD_CHARS);
  if (!client) {
    // A server's line is read as before (a leading BOM dropped): it is serialised again for the client.
    if (text.charCodeAt(0) === BOM) text = text.slice(1);
  } else {
    const bom = bomAt(text);
    if (bom !== -1) {
      // Some parsers skip it, some refuse it: refused, as unparseable input is (read only to log it).
      const rest = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).subarray(Buffer.byteLength(text.slice(0, bom + 1)));
      const parsed = tryParse(text.slice(bom + 1));
      const read = parsed && repeatedEnvelopeKey(rest) === undefined ? parsed : undefined;
      return {
        ok: false,
        code: ErrorCode.ParseError,
        reason: 'the message starts with a byte order mark (U+FEFF), which JSON-RPC messages must not carry',
        id: sniffId(head),
        head,
        ...(read ? { read } : {}),
      };
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, code: ErrorCode.ParseError, reason: `invalid JSON: ${(err as Error).message}`, id: sniffId(head), head };
  }
  if (client) {
    const repeated = repeatedEnvelopeKey(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (repeated !== undefined) {
      const id = typeof value === 'object' && value !== null && 'id' in value ? usableId((value as { id: unknown }).id) : null;
      return {
        ok: false,
        code: ErrorCode.InvalidRequest,
        reason: `the key ${JSON.stringify(repeated.slice(0, 100))} appears twice in the message's envelope, which parsers read differently`,
        id,
        head,
      };
    }
  }
  return { ok: true, value, head };
}

const JSON_WHITESPACE = /^[ \t\r\n]*$/;

/** Checks one line of bytes from a client (or, `client` false, a server): the message, or why it is refused. */
export function guardLine(bytes: Uint8Array, client = false): GuardedLine {
  const text = decodeUtf8(bytes);
  if (text !== undefined && JSON_WHITESPACE.test(text)) return { ok: false, empty: true };
  const read = readDecoded(bytes, text, client);
  return read.ok ? guardValue(read.value, read.head) : read;
}

/** The checks on a parsed message: one object, a well-formed envelope, a usable id. */
export function guardValue(value: unknown, head: string): GuardedLine {
  if (Array.isArray(value)) {
    return { ok: false, code: ErrorCode.InvalidRequest, reason: BATCH_REFUSAL, id: null, read: { value }, head };
  }
  const checked = checkEnvelope(value);
  const id = typeof value === 'object' && value !== null && 'id' in value ? usableId((value as { id: unknown }).id) : null;
  if (!checked.ok) return { ok: false, code: ErrorCode.InvalidRequest, reason: checked.reason, id, read: { value }, head };
  return checked;
}

export const BATCH_REFUSAL = 'batches are not supported (JSON-RPC batching was removed from MCP in 2025-06-18): send one message per line';

/** The answer to a refused line: `{"jsonrpc":"2.0","id":<id or null>,"error":{…}}`. */
export function refusalFor(bad: { code: number; reason: string; id: string | number | null }): JsonRpcMessage {
  return errorResponse(bad.id, bad.code, `Countersign refused a message: ${bad.reason}`);
}
