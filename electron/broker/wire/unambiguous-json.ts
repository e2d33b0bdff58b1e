// Whether bytes that JSON.parse accepted mean the same to every JSON parser, and would be written back
// the same by JSON.stringify apart from whitespace and string escapes. A call is decided on JSON.parse's
// reading; passing its bytes on (http/request-lane.ts) must not let the server read something else:
// a repeated key (parsers keep the first, the last, or refuse), a key spelled with escapes (one more way
// to repeat one), a number JSON.parse rounds or spells otherwise (1.0, 1e3, 2^53 + 1, 1e400).

const MAX_DEPTH = 256;

const enum Ch {
  Tab = 9,
  Lf = 10,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Comma = 44,
  Backslash = 92,
  LBracket = 91,
  RBracket = 93,
  LBrace = 123,
  RBrace = 125,
  Colon = 58,
}

function ws(b: Buffer, i: number): number {
  for (let c = b[i]; c === Ch.Space || c === Ch.Tab || c === Ch.Lf || c === Ch.Cr; c = b[++i]);
  return i;
}

// The next backslash at or after `from` in the buffer being read, kept as the scan moves forward.
let scanned: Buffer | undefined;
let scannedFrom = 0;
let backslashAt = -1;
function nextBackslash(b: Buffer, from: number): number {
  if (b !== scanned || from < scannedFrom || (backslashAt >= 0 && from > backslashAt)) {
    scanned = b;
    scannedFrom = from;
    backslashAt = b.indexOf(Ch.Backslash, from);
  }
  return backslashAt < 0 ? Infinity : backslashAt;
}

/** i at the opening quote of a valid string: the index after its closing quote; -(that) when it holds an escape. */
function skipString(b: Buffer, i: number): number {
  // Most strings hold no escape: the closing quote is the next one (found natively, a file's content at once).
  const quote = b.indexOf(Ch.Quote, i + 1);
  if (quote < 0) return 0;
  if (nextBackslash(b, i + 1) > quote) return quote + 1;
  let escaped = false;
  for (i++; ; i++) {
    const c = b[i];
    if (c === undefined) return 0;
    if (c === Ch.Quote) return escaped ? -(i + 1) : i + 1;
    if (c === Ch.Backslash) {
      escaped = true;
      i++;
    }
  }
}

function isNumberByte(c: number | undefined): boolean {
  return c !== undefined && ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 69 || c === 101);
}

/** Sees each member of the outermost object: its key, and where its value starts and ends. */
type OnMember = (key: string, start: number, end: number) => void;

/**
 * i at a value: the index after it, or 0 when it is ambiguous (or, defensively, not valid JSON).
 * `onMember` is told of the members of this value when it is an object (not of deeper ones).
 */
function value(b: Buffer, i: number, depth: number, onMember?: OnMember): number {
  const c = b[i];
  if (c === Ch.Quote) return Math.abs(skipString(b, i));
  if (c === Ch.LBrace || c === Ch.LBracket) {
    if (depth >= MAX_DEPTH) return 0;
    const object = c === Ch.LBrace;
    const close = object ? Ch.RBrace : Ch.RBracket;
    const keys = object ? new Set<string>() : undefined;
    i = ws(b, i + 1);
    if (b[i] === close) return i + 1;
    for (;;) {
      let key: string | undefined;
      if (keys) {
        if (b[i] !== Ch.Quote) return 0;
        const end = skipString(b, i);
        if (end <= 0) return 0; // escaped (or broken): its key could equal another
        key = b.toString('latin1', i + 1, end - 1);
        if (keys.has(key)) return 0;
        keys.add(key);
        i = ws(b, end);
        if (b[i] !== Ch.Colon) return 0;
        i = ws(b, i + 1);
      }
      const start = i;
      i = value(b, i, depth + 1);
      if (i === 0) return 0;
      if (key !== undefined) onMember?.(key, start, i);
      i = ws(b, i);
      if (b[i] === close) return i + 1;
      if (b[i] !== Ch.Comma) return 0;
      i = ws(b, i + 1);
    }
  }
  if (c === 0x74 /* t */) return i + 4;
  if (c === 0x66 /* f */) return i + 5;
  if (c === 0x6e /* n */) return i + 4;
  const start = i;
  while (isNumberByte(b[i])) i++;
  if (i === start) return 0;
  const text = b.toString('latin1', start, i);
  // Written as JSON.stringify would write what JSON.parse made of it: no rounding, no other spelling.
  return String(Number(text)) === text ? i : 0;
}

/** Checks the one JSON value in `b` (see above), telling `onMember` of its members if it is an object. */
function check(b: Buffer, onMember?: OnMember): boolean {
  try {
    const end = value(b, ws(b, 0), 0, onMember);
    return end !== 0 && ws(b, end) === b.length;
  } finally {
    scanned = undefined;
  }
}

/** `b` holds one JSON value JSON.parse accepted: true when no parser could read it otherwise (see above). */
export function unambiguous(b: Buffer): boolean {
  return check(b);
}

/** Where a request's id is and what its method says, found while checking it is unambiguous (one pass). */
export interface RequestBytes {
  idStart: number;
  idEnd: number;
  /** The method as written; undefined when spelled with escapes. */
  method?: string;
}

/** `b` holds one JSON-RPC message JSON.parse accepted: its id and method when no parser could read it otherwise. */
export function unambiguousRequest(b: Buffer): RequestBytes | undefined {
  if (b[ws(b, 0)] !== Ch.LBrace) return undefined;
  const found: RequestBytes = { idStart: -1, idEnd: -1 };
  const ok = check(b, (key, start, end) => {
    if (key === 'id') Object.assign(found, { idStart: start, idEnd: end });
    else if (key === 'method' && b[start] === Ch.Quote && skipString(b, start) > 0) found.method = b.toString('utf8', start + 1, end - 1);
  });
  return ok ? found : undefined;
}

/** i at the opening quote of a string: the index after its closing quote (0 when there is none). */
function stringEnd(b: Buffer, i: number): number {
  for (let q = b.indexOf(Ch.Quote, i + 1); q > 0; q = b.indexOf(Ch.Quote, q + 1)) {
    let slashes = 0;
    while (b[q - 1 - slashes] === Ch.Backslash) slashes++;
    if (slashes % 2 === 0) return q + 1;
  }
  return 0;
}

/** i at a value of bytes JSON.parse accepted: the index after it, found without recursion (0 when the bytes end first). */
function skipParsed(b: Buffer, i: number): number {
  const c = b[i];
  if (c === Ch.Quote) return stringEnd(b, i);
  if (c !== Ch.LBrace && c !== Ch.LBracket) {
    while (i < b.length && b[i] !== Ch.Comma && b[i] !== Ch.RBrace && b[i] !== Ch.RBracket && ws(b, i) === i) i++;
    return i;
  }
  let depth = 0;
  while (i < b.length) {
    const d = b[i];
    if (d === Ch.Quote) {
      i = stringEnd(b, i);
      if (i === 0) return 0;
      continue;
    }
    if (d === Ch.LBrace || d === Ch.LBracket) depth++;
    else if ((d === Ch.RBrace || d === Ch.RBracket) && --depth === 0) return i + 1;
    i++;
  }
  return 0;
}

/** The keys of the object at i, each with where its value starts; undefined when i holds no object. */
function membersAt(b: Buffer, i: number): Array<{ key: string; at: number }> | undefined {
  if (b[i] !== Ch.LBrace) return undefined;
  const out: Array<{ key: string; at: number }> = [];
  i = ws(b, i + 1);
  while (b[i] === Ch.Quote) {
    const end = stringEnd(b, i);
    if (end === 0) return out;
    const raw = b.toString('utf8', i, end);
    // A key spelled with escapes is compared as JSON.parse reads it ("\u0069d" is "id").
    const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    i = ws(b, ws(b, end) + 1); // past the colon
    out.push({ key, at: i });
    i = skipParsed(b, i);
    if (i === 0) return out;
    i = ws(b, i);
    if (b[i] !== Ch.Comma) return out;
    i = ws(b, i + 1);
  }
  return out;
}

/**
 * A key that appears twice in a message's envelope (its own members, or those of its `params`), in bytes
 * JSON.parse accepted; undefined when none does. JSON.parse keeps the last, other parsers the first or
 * refuse: a server could read another method, id, tool or arguments than Countersign decided on.
 */
export function repeatedEnvelopeKey(b: Buffer): string | undefined {
  const top = membersAt(b, ws(b, 0));
  if (!top) return undefined;
  const seen = new Set<string>();
  let params: number | undefined;
  for (const { key, at } of top) {
    if (seen.has(key)) return key;
    seen.add(key);
    if (key === 'params') params = at;
  }
  if (params === undefined) return undefined;
  const inner = new Set<string>();
  for (const { key } of membersAt(b, params) ?? []) {
    if (inner.has(key)) return `params.${key}`;
    inner.add(key);
  }
  return undefined;
}
