// Checks on a call's arguments that must hold for any size or shape a hostile agent sends: a bounded
// nesting depth (checked without recursion), and a text scan and a secret search that give the event
// loop back often.
import type { Finding } from '../../../shared/findings.js';
import { yielder } from '../core/yielder.js';
import { scanText, scanTextAsync, SCAN_WINDOW, type ServerTools } from './scan/index.js';
import { secretValueFindings } from './secret-values.js';

export { MAX_ARGUMENT_DEPTH, nestingDepth, TOO_DEEP_REFUSAL, depthRefusal, tooDeepIn, tooDeepRefusal, TOO_DEEP_ARGUMENTS } from './argument-depth.js';
import { MAX_ARGUMENT_DEPTH } from './argument-depth.js';

/** Most findings one call's arguments add to its card. */
export const MAX_ARGUMENT_FINDINGS = 50;
/** Longest stretch the scan holds the event loop before yielding. */
export const SCAN_SLICE_MS = 10;

/**
 * Scans every string value in the arguments as argument text, and for credential-shaped values (one
 * finding per kind). Linear in the total size; the event loop is never held longer than about
 * SCAN_SLICE_MS plus one scan window. The same finding from many strings is kept once.
 */
export async function scanArguments(args: unknown, otherServers: ServerTools[], pause = yielder(SCAN_SLICE_MS)): Promise<Finding[]> {
  const out: Finding[] = [];
  const seen = new Set<string>();
  const ctx = { otherServers, where: 'argument' as const };
  const take = (found: Finding[]) => {
    for (const f of found) {
      const key = `${f.code}\u0000${f.message}`;
      if (seen.has(key) || out.length >= MAX_ARGUMENT_FINDINGS) continue;
      seen.add(key);
      out.push(f);
    }
  };
  const secrets = new Set<string>();
  // With each value, the name of the property that holds it (array items keep their array's name).
  const stack: Array<[unknown, number, string | undefined]> = [[args, 0, undefined]];
  while (stack.length && out.length < MAX_ARGUMENT_FINDINGS) {
    const [value, depth, key] = stack.pop()!;
    if (typeof value === 'string') {
      take(value.length > SCAN_WINDOW ? await scanTextAsync(value, ctx, pause) : scanText(value, ctx));
      take(await secretValueFindings(value, key, secrets, pause));
      await pause();
    } else if (value !== null && typeof value === 'object' && depth < MAX_ARGUMENT_DEPTH) {
      // Pushed in reverse so findings come out in document order.
      if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], depth + 1, key]);
      else for (const [k, v] of Object.entries(value).reverse()) stack.push([v, depth + 1, k]);
    }
  }
  return out;
}
