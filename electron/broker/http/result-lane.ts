// HTTP's result lane: a server's result for a request of an HTTP session goes to the client as its own
// bytes, with only its id changed, instead of being parsed into objects and serialised again (as
// `connect`'s fast lane does, relay-mode/connect/fast-lane.ts). A call's answer still waits for its audit entry
// (BytePass.passResultLogged, relay/byte-pass.ts). Anything the scan does not vouch for takes the ordinary path.
import type { BytePass } from '../relay/byte-pass.js';
import { withId } from '../wire/json-scan.js';
import { passableResult } from '../relay-mode/connect/fast-lane.js';
import type { ByteAnswers } from '../wire/transport.js';

const CR = 0x0d;

/** For the server side's LineTransport (takeLine): true when the line was handled here. */
export function resultLane(session: () => BytePass, client: ByteAnswers): (line: Buffer) => boolean {
  return (line) => {
    const env = passableResult(line, session());
    // SSE ends a line at a CR too: a line with one (JSON whitespace) goes the ordinary way, re-serialised.
    if (!env || line.includes(CR)) return false;
    const downId = session().awaitedDownId(env.id);
    if (downId === undefined || !client.takesBytes(downId)) return false;
    const outcome = { status: env.resultIsError ? ('error' as const) : ('ok' as const) };
    const passed = session().passResultLogged(env.id, outcome, (id) => client.sendBytes(withId(line, env, JSON.stringify(id)), id));
    return passed !== undefined;
  };
}
