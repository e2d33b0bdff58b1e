// HTTP's result lane: a server's result for a request of an HTTP session goes to the client as its own
// bytes, with only its id changed, instead of being parsed into objects and serialised again (as
// `connect`'s fast lane does, relay-mode/fast-lane.ts). A call's answer still waits for its audit entry
// (RelaySession.passResultLogged). Anything the scan does not vouch for takes the ordinary path.
import { isUtf8 } from 'node:buffer';
import type { RelaySession } from '../relay-session.js';
import { idHint, scanEnvelope, withId } from '../relay-mode/json-scan.js';
import type { ByteAnswers } from '../transport.js';

const INPUT_REQUIRED = Buffer.from('input_required');
const CR = 0x0d;

/** For the server side's LineTransport (takeLine): true when the line was handled here. */
export function resultLane(session: () => RelaySession, client: ByteAnswers): (line: Buffer) => boolean {
  return (line) => {
    // A result the lane would not pass (a tools/list page) is not scanned at all.
    const hint = idHint(line);
    if (hint !== undefined && !session().mayPassResult(hint)) return false;
    // SSE ends a line at a CR too: a line with one (JSON whitespace) goes the ordinary way, re-serialised.
    if (line.includes(CR) || !isUtf8(line)) return false;
    const env = scanEnvelope(line);
    if (!env || env.method !== undefined || !env.hasResult || env.hasError || typeof env.id !== 'number') return false;
    // A result that asks for input (2026-07-28) is recorded as a round by the ordinary path.
    if (line.includes(INPUT_REQUIRED)) return false;
    const downId = session().awaitedDownId(env.id);
    if (downId === undefined || !client.takesBytes(downId)) return false;
    const outcome = { status: env.resultIsError ? ('error' as const) : ('ok' as const) };
    const passed = session().passResultLogged(env.id, outcome, (id) => client.sendBytes(withId(line, env, JSON.stringify(id)), id));
    return passed !== undefined;
  };
}
