// V8 settings for a long-lived broker process (`countersign serve`, the desktop app's main process).
// The broker sits idle between bursts of small messages. V8 doubles its young generation whenever a
// scavenge finds it busy (up to 16 MB here) and only gives it back at a later GC, which an idle process
// never runs: after 200 calls an idle broker kept ~12 MB of empty young space. Holding the young
// generation at its first size means more, each smaller, scavenges; per-call CPU did not change (bench idle/mcp).
// Set at run time: the growth factor is read each time new space would grow, so it works after start,
// unlike --max-semi-space-size (read once, when the heap is made) or NODE_OPTIONS (which would leak
// into every server the broker starts).
import { setFlagsFromString } from 'node:v8';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

let applied = false;

/** Call once, early, in the process that hosts the broker; never in `connect` or other short commands. */
export function keepYoungGenerationSmall(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString(YOUNG_GENERATION_FLAG);
}
