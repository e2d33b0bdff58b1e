// When the agent is likely to stop waiting, in the words the card and the detail use. The approval
// timeout is Countersign's; the client usually gives up first (the MCP SDK's default is 60 s).
import type { PendingCall } from '../../../shared/api';
import { clockTime, duration } from './format';

export interface WaitClock {
  /** The card's clock. */
  short: string;
  /** The card's clock where a long server name leaves no room for `short`: the time left, first. */
  tiny: string;
  urgent: boolean;
  /** `short` is about when the agent gives up (not Countersign's timeout). */
  agent?: boolean;
  /** The detail's line about the client (one line on a small window). */
  sentence?: string;
}

export function waitClock(call: PendingCall, now: number): WaitClock {
  const deny = call.expiresAt - now;
  const denyText = deny > 0 ? `times out in ${duration(deny)}` : 'timing out';
  const denyTiny = deny > 0 ? `${duration(deny)} left` : 'timing out';
  const wait = call.clientWait;
  if (!wait || wait.givesUpAt === undefined || wait.givesUpAt >= call.expiresAt) return { short: denyText, tiny: denyTiny, urgent: deny < 30_000 };
  const left = wait.givesUpAt - now;
  const at = clockTime(wait.givesUpAt);
  if (wait.basis === 'progress') {
    return {
      short: `agent kept waiting · ${denyText}`,
      tiny: denyTiny,
      urgent: deny < 30_000,
      sentence: `Kept informed by progress: waits until ${clockTime(call.expiresAt)} if it restarts its clock on progress, else stops at about ${at}.`,
    };
  }
  const basis =
    wait.basis === 'observed'
      ? `this client stopped waiting after ${duration(wait.givesUpAt - call.createdAt)} before`
      : 'no progress token, and the MCP SDK default is 60 s';
  return {
    short: left > 0 ? `agent gives up in ~${duration(left)}` : 'agent may have stopped waiting',
    tiny: left > 0 ? `agent: ~${duration(left)}` : 'agent may have stopped',
    agent: true,
    urgent: left < 20_000,
    sentence: `${left > 0 ? `Likely stops waiting at ${at} (in ${duration(left)})` : `Has likely stopped waiting (at ${at})`}: ${basis}.`,
  };
}
