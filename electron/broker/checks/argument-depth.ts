// How deep a call's arguments nest, counted without recursion. Its own file: `connect` checks it on
// every leased call and must not load the text scans of argument-checks.ts.

/**
 * Deepest nesting of arrays and objects a call's arguments may have. Real tools nest a few levels;
 * deeper input is refused before anything recursive (hashes, previews, the log) touches it.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** The nesting depth of a JSON value, counted without recursion; stops counting past `limit`. */
export function nestingDepth(value: unknown, limit = MAX_ARGUMENT_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, inner]);
    }
  }
  return deepest;
}

/** The refusal of a call whose `what` (its arguments, or another member of its params) nests too deep. */
export function tooDeepRefusal(what = 'arguments'): string {
  return `The call's ${what === 'arguments' ? 'arguments nest' : `'${what}' nests`} deeper than ${MAX_ARGUMENT_DEPTH} levels, more than Countersign checks, so it was refused and not run.`;
}

export const TOO_DEEP_REFUSAL = tooDeepRefusal();

/** The refusal sentence when the arguments (or `what`) nest deeper than the limit, else undefined. */
export function depthRefusal(args: unknown, what = 'arguments'): string | undefined {
  return nestingDepth(args) > MAX_ARGUMENT_DEPTH ? tooDeepRefusal(what) : undefined;
}

/**
 * Which member of a tools/call's params nests deeper than the limit (arguments, inputResponses, _meta…),
 * else undefined. Every part of a call is held to it: each is serialised, shown or logged somewhere.
 */
export function tooDeepIn(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  for (const [key, value] of Object.entries(params)) if (nestingDepth(value) > MAX_ARGUMENT_DEPTH) return key;
  return undefined;
}

/** What the log keeps of arguments that were refused for their depth: a note, not the value. */
export const TOO_DEEP_ARGUMENTS = { countersign: `arguments not recorded: nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
