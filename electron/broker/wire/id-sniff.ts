// Reading what a message is from its raw text or bytes without parsing it all — the one place that does.
// For a message that did not parse (or was too long to keep): the id its refusal carries, so the client can
// match it, and the tool's name its log entry records (jsonrpc-guard.ts, line-transport.ts, refused-calls.ts).
// And, for the fast lanes, a guess at a server's response id from where most servers write it, before the
// line is scanned (relay-mode/connect/fast-lane.ts). Only ever a guess: nothing passes or is decided on it.

/** `"<key>": <a string, or a number>` near the start of a text: the value's JSON. */
const ID = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/;
const NAME = /"name"\s*:\s*("(?:[^"\\]|\\.){0,200}")/;

function sniff(head: string, pattern: RegExp): unknown {
  const m = pattern.exec(head);
  if (!m?.[1]) return undefined;
  try {
    return JSON.parse(m[1]) as unknown;
  } catch {
    return undefined;
  }
}

/** Finds `"id": <value>` near the start of a line without parsing it all (for lines that do not parse). */
export function sniffId(head: string): string | number | null {
  const v = sniff(head, ID);
  return typeof v === 'string' || typeof v === 'number' ? v : null;
}

/** `"name": "<tool>"` in the first bytes of a message that did not parse, else ''. */
export function sniffName(head: string): string {
  const v = sniff(head, NAME);
  return typeof v === 'string' ? v : '';
}

const enum Ch {
  Lf = 10,
  Cr = 13,
  Space = 32,
  Comma = 44,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  RBrace = 125,
}

/**
 * A guess at a response's id from how most servers write it, `{"jsonrpc":"2.0","id":N,…` or `…,"id":N}`,
 * without reading the rest: lets the fast lane skip the scan of a line it would not pass anyway (a
 * tools/list page). Only a hint: a line it names is still scanned in full before anything passes.
 */
export function idHint(b: Buffer): number | undefined {
  let end = b.length;
  while (end > 0 && (b[end - 1] === Ch.Lf || b[end - 1] === Ch.Cr || b[end - 1] === Ch.Space)) end--;
  if (b[end - 1] === Ch.RBrace) {
    let i = end - 1;
    while (i > 0 && b[i - 1]! >= Ch.Zero && b[i - 1]! <= Ch.Nine) i--;
    if (i < end - 1 && i >= 6 && b[i - 1] === Ch.Colon && TAIL_KEY.equals(b.subarray(i - 6, i - 1))) return Number(b.toString('latin1', i, end - 1));
  }
  if (b.length > HEAD.length && HEAD.equals(b.subarray(0, HEAD.length))) {
    let i = HEAD.length;
    while (b[i]! >= Ch.Zero && b[i]! <= Ch.Nine) i++;
    if (i > HEAD.length && b[i] === Ch.Comma) return Number(b.toString('latin1', HEAD.length, i));
  }
  return undefined;
}

const TAIL_KEY = Buffer.from(',"id"');
const HEAD = Buffer.from('{"jsonrpc":"2.0","id":');
