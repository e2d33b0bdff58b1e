// How many bytes of data a call's arguments carry: what could leave through an open-world tool.
// The values count (strings as UTF-8, numbers as written), and so do the keys of nested objects, which
// can hold data too; the JSON around them does not, nor do the top-level argument names (the tool's own).
import { utf8Length } from './call-targets.js';

export function carriedBytes(args: unknown): number {
  let total = 0;
  // A stack, not recursion: arguments come from the agent, and may nest deeply.
  const stack: Array<{ value: unknown; top: boolean }> = [{ value: args, top: true }];
  while (stack.length) {
    const { value, top } = stack.pop()!;
    if (typeof value === 'string') total += utf8Length(value);
    else if (typeof value === 'number' || typeof value === 'bigint') total += String(value).length;
    else if (Array.isArray(value)) for (const item of value) stack.push({ value: item, top: false });
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (!top) total += utf8Length(key);
        stack.push({ value: item, top: false });
      }
    }
  }
  return total;
}
