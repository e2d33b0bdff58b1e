// When V8 optimises hot code. It compiles a function with its optimising compiler (TurboFan) once the
// function has run enough: a set amount of bytecode (the interrupt budget, 66 KB by default) up to V8 11
// (Node 20), a number of invocations (3,000 by default) from V8 12 (Node 22 on). A relay's per-call path is long,
// so with the default a session's first thousand or so calls run in V8's baseline tiers, at about a third
// more CPU each (measured after 300 calls). Once a process has handled BUSY_AFTER_CALLS tool calls it
// is a busy one, and its hot code is optimised 8× sooner. A quiet relay (most of a person's `connect`s)
// never pays the optimised code's memory (~6 MB), which a busy one reaches later anyway.
// Set at run time, so nothing changes in how processes are launched and no server inherits it.
import { setFlagsFromString } from 'node:v8';

/** 8× sooner, in the unit this V8 counts: an unknown flag would only print an error on stderr. */
export function tierUpFlag(v8Version: string = process.versions.v8): string {
  return Number.parseInt(v8Version, 10) >= 12 ? '--invocation-count-for-turbofan=375' : '--interrupt-budget=8192';
}

export const TIER_UP_FLAG = tierUpFlag();
export const BUSY_AFTER_CALLS = 100;

/** A counter that runs `onBusy` once, at the `after`-th count. */
export function callCounter(after: number, onBusy: () => void): () => void {
  let calls = 0;
  return () => {
    if (++calls === after) onBusy();
  };
}

/** Counts one tool call handled by this process (relayed, decided or reported). */
export const countToolCall = callCounter(BUSY_AFTER_CALLS, () => setFlagsFromString(TIER_UP_FLAG));
