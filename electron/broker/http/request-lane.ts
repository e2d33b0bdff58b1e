// HTTP's request lane: an allowed tools/call goes to a stdio server as the client's own bytes with only
// its id changed, instead of being serialised again from the parsed request (as `connect`'s fast lane
// does, relay-mode/connect/fast-lane.ts; results come back the same way, result-lane.ts). The call was decided
// on JSON.parse's reading of those bytes: they pass only when no parser could read them otherwise
// (unambiguous-json.ts) and they fit on one line. Anything else is serialised again, as before.
import { withId } from '../wire/json-scan.js';
import { unambiguousRequest } from '../wire/unambiguous-json.js';

const LF = 0x0a;
const CR = 0x0d;
const TOOLS_CALL = 'tools/call';

/** The line to send for the tools/call that came alone in `body` (a POST's, parsed already), under `upId`; undefined: serialise it. */
export function requestLine(body: Buffer, upId: number): Buffer | undefined {
  // Only JSON whitespace can hold a CR or LF here; stdio would split the message at it.
  if (body.includes(LF) || body.includes(CR)) return undefined;
  const found = unambiguousRequest(body);
  if (!found || found.method !== TOOLS_CALL || found.idStart < 0) return undefined;
  return withId(body, found, String(upId));
}
