// What the client is told when a forwarded call ends: its answer goes out once its audit entry is written
// (a crash then loses no answered call), a call the log did not take is answered as run but not logged,
// and a request in flight when the server went away says why.
import type { JsonRpcId, JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { errorResult, type CallOutcome } from '../calls/gate-contract.js';
import { shapedResult } from './protocol/era.js';
import type { ExitInfo } from '../upstream/stdio-upstream.js';
import type { ForwardedCall } from './id-maps.js';

/** Settles `call` with `outcome`, and sends `answer` once its entry is on disk. */
export function answerLogged(
  call: ForwardedCall,
  outcome: CallOutcome,
  answer: JsonRpcMessage,
  downId: JsonRpcId,
  toClient: (m: JsonRpcMessage, related: JsonRpcId) => void,
): void {
  const logged = call.onSettled(outcome);
  if (!logged) return toClient(answer, downId);
  void logged.then((written) => toClient(written ? answer : unloggedAnswer(call, downId), downId));
}

/** The answer to a call that ran but could not be logged: its result is withheld. */
export function unloggedAnswer(call: ForwardedCall, downId: JsonRpcId): JsonRpcMessage {
  const result = errorResult(
    `Countersign ran this call but could not write it to its audit log, so its answer is withheld. The entry is kept and written once the log is writable; until then new calls are refused.`,
  );
  return { jsonrpc: '2.0', id: downId, result: shapedResult(result, call.request) };
}

/** Why the server went away, in words for the client and the log. */
export function serverGone(serverName: string, exit: ExitInfo | undefined): string {
  if (exit?.startError) return `Server '${serverName}' could not be started (${exit.startError})`;
  if (!exit) return `Server '${serverName}' closed the connection`;
  let why = `Server '${serverName}' stopped (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
  const tail = exit.stderrTail.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
  if (tail) why += `; its last words: ${tail}`;
  return why;
}
