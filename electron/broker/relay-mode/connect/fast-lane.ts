// `connect`'s fast lane: a message that needs no decision and no rewriting goes through as its own bytes,
// with only its id changed, instead of being parsed into objects and serialised again. A quick scan
// (json-scan.ts) checks the line and finds the method and id; anything else, and anything the scan does
// not vouch for, takes the ordinary path (LineTransport → RelaySession; its books are kept by relay/byte-pass.ts), which behaves as before.
import { isUtf8 } from 'node:buffer';
import type { JsonRpcRequest } from '../../../../shared/jsonrpc.js';
import type { LineTransport } from '../../wire/line-transport.js';
import type { BytePass } from '../../relay/byte-pass.js';
import type { AttachedUpstream } from './attached-upstream.js';
import { scanEnvelope, withId, type Envelope } from '../../wire/json-scan.js';
import { idHint } from '../../wire/id-sniff.js';
import { unambiguous } from '../../wire/unambiguous-json.js';

/** Client requests relayed without a look inside: nothing in them is decided, recorded or rewritten. */
const PASS_METHODS: ReadonlySet<string> = new Set([
  'ping',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

const INPUT_REQUIRED = Buffer.from('input_required');

export interface FastLane {
  /** For the client side's LineTransport. */
  fromClient(line: Buffer): boolean;
  /** For the server side's LineTransport. */
  fromServer(line: Buffer): boolean;
}

export function fastLane(session: () => BytePass, client: () => LineTransport, server: AttachedUpstream): FastLane {
  return {
    fromClient(line) {
      // Invalid UTF-8 is refused by the ordinary path.
      if (!isUtf8(line)) return false;
      const env = scanEnvelope(line);
      if (!env || env.method === undefined || env.id === undefined) return false;
      let upId: number | undefined;
      if (env.method === 'tools/call') {
        // A call is decided on its arguments: parsed, but not serialised again when a lease lets it through,
        // unless another parser could read those bytes otherwise than JSON.parse did (a repeated key, a
        // number it rounds): then the ordinary path writes the server exactly what was decided.
        const request = JSON.parse(line.toString('utf8')) as JsonRpcRequest;
        upId = unambiguous(line) ? session().passToolCall(request) : undefined;
        if (upId === undefined) {
          client().onmessage?.(request);
          return true;
        }
      } else if (PASS_METHODS.has(env.method)) {
        upId = session().passRequest(env.id, env.method);
      }
      if (upId === undefined) return false;
      void server.sendBytes(withId(line, env, String(upId))).catch(() => undefined);
      return true;
    },
    fromServer(line) {
      const env = passableResult(line, session());
      if (!env) return false;
      const claim = session().passResult(env.id);
      if (claim === undefined) return false;
      if (claim === null) return true;
      // Reported before the client sees the result, as on the ordinary path.
      claim.onSettled?.({ status: env.resultIsError ? 'error' : 'ok' });
      void client()
        .sendBytes(withId(line, env, JSON.stringify(claim.downId)))
        .catch(() => undefined);
      return true;
    },
  };
}

/**
 * A server's line that may go to the client as its own bytes: a plain result (no error, no input asked)
 * of a request `session` would pass. Its envelope, or undefined for the ordinary path.
 */
export function passableResult(line: Buffer, session: BytePass): (Envelope & { id: number }) | undefined {
  // Most servers put the id first or last: a result the lane would not pass (a tools/list page) is
  // not scanned at all (a long scan also wakes V8's optimizing compiler, megabytes of RSS).
  const hint = idHint(line);
  if (hint !== undefined && !session.mayPassResult(hint)) return undefined;
  if (!isUtf8(line)) return undefined;
  const env = scanEnvelope(line);
  if (!env || env.method !== undefined || !env.hasResult || env.hasError || typeof env.id !== 'number') return undefined;
  // A result that asks for input (2026-07-28) is recorded as a round by the ordinary path, whatever the era.
  if (line.includes(INPUT_REQUIRED)) return undefined;
  return env as Envelope & { id: number };
}
