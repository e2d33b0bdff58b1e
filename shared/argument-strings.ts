// The one walk over a call's arguments that the checks reading "every string in the call" share:
// self-protection, the CLI check and scoped rules. Every string value and every object key, at any
// depth, in document order. Bounded: a call with more than the walk reads says so (`complete: false`),
// and each check then fails closed (it asks) instead of letting the unread part through.

/** Deeper than the broker accepts at all (electron/broker/checks/argument-depth.ts refuses past 64 levels). */
export const MAX_WALK_DEPTH = 64;
/** More strings than any real call holds; past this the call is not read further. */
export const MAX_WALK_STRINGS = 200_000;

/** Where a string was found. */
export interface StringPlace {
  /** The top-level argument it is in (`''` for a bare array or string as the arguments). */
  top: string;
  /** The nearest object key above it (its own key for a value, the parent's for a key). */
  key: string;
  /** The string is an object key, not a value. */
  isKey: boolean;
  /** Object keys on the way from the top, nearest last (array items add none). */
  keys: readonly string[];
}

/** Returns false to stop the walk (the result is then incomplete). */
export type StringVisitor = (text: string, place: StringPlace) => boolean | void;

/**
 * Visits every string in `args`. `complete` is false when the walk stopped early: too deep, too many
 * strings, or a visitor stopped it.
 */
export function walkStrings(args: unknown, visit: StringVisitor): { complete: boolean } {
  let count = 0;
  let complete = true;
  const keys: string[] = [];
  const step = (value: unknown, depth: number, top: string): boolean => {
    if (typeof value === 'string') {
      if (++count > MAX_WALK_STRINGS) return (complete = false);
      if (visit(value, { top, key: keys[keys.length - 1] ?? '', isKey: false, keys }) === false) return (complete = false);
      return true;
    }
    if (value === null || typeof value !== 'object') return true;
    if (depth >= MAX_WALK_DEPTH) return (complete = false);
    if (Array.isArray(value)) {
      for (const item of value) if (!step(item, depth + 1, top)) return false;
      return true;
    }
    for (const [k, v] of Object.entries(value)) {
      const t = depth === 0 ? k : top;
      if (++count > MAX_WALK_STRINGS) return (complete = false);
      if (visit(k, { top: t, key: keys[keys.length - 1] ?? '', isKey: true, keys }) === false) return (complete = false);
      keys.push(k);
      const ok = step(v, depth + 1, t);
      keys.pop();
      if (!ok) return false;
    }
    return true;
  };
  step(args, 0, '');
  return { complete };
}
