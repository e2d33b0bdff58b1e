// When the agent is likely to stop waiting, in the words the card and the detail use. The approval
// timeout is Countersign's; the client usually gives up first (the MCP SDK's default is 60 s).
import type { PendingCall } from '../../../shared/api';
import { clockTime, duration } from './format';

export interface WaitClock {
  /** The card's clock. */
  short: string;
  urgent: boolean;
  /** The detail's sentence about the client. */
  sentence?: string;
}

export function waitClock(call: PendingCall, now: number): WaitClock {
  const deny = call.expiresAt - now;
  const denyText = deny > 0 ? `times out in ${duration(deny)}` : 'timing out';
  const wait = call.clientWait;
  if (!wait || wait.givesUpAt === undefined || wait.givesUpAt >= call.expiresAt) return { short: denyText, urgent: deny < 30_000 };
  const left = wait.givesUpAt - now;
  const at = clockTime(wait.givesUpAt);
  if (wait.basis === 'progress') {
    return {
      short: `agent kept waiting · ${denyText}`,
      urgent: deny < 30_000,
      sentence: `The client asked for progress, and Countersign sends it while you decide: a client that restarts its clock on progress waits until ${clockTime(call.expiresAt)}; one that does not stops at about ${at}.`,
    };
  }
  const basis = wait.basis === 'observed'
    ? `This client stopped waiting after ${duration(wait.givesUpAt - call.createdAt)} before.`
    : 'It sent no progress token, and most MCP clients (the SDK default) stop waiting after 60 s.';
  return {
    short: left > 0 ? `agent gives up in ~${duration(left)}` : 'agent may have stopped waiting',
    urgent: left < 20_000,
    sentence: `${left > 0 ? `The agent will likely stop waiting at ${at} (in ${duration(left)})` : `The agent has likely stopped waiting (at ${at})`}, long before Countersign's own timeout. ${basis}`,
  };
}
