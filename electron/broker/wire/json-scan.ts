// A cheap look at one JSON-RPC line as bytes, for `connect`'s fast lane: checks the whole line is valid
// JSON (the grammar JSON.parse accepts) without building objects, and finds what relaying needs: the
// method, the id and where its bytes are, whether a result says isError (a guess at the id before the
// scan is id-sniff.ts's idHint). Anything unusual (escapes in a
// key we look at, a repeated key, a null id, deep nesting) answers undefined: the caller then takes the
// ordinary path, which parses the line and handles it exactly as before.

export interface Envelope {
  method?: string;
  /** The id's value and its byte span in the line (start inclusive, end exclusive). */
  id?: string | number;
  idStart: number;
  idEnd: number;
  hasParams: boolean;
  hasResult: boolean;
  hasError: boolean;
  /** The result is an object whose own `isError` is `true`. */
  resultIsError: boolean;
}

const MAX_DEPTH = 256;

const enum Ch {
  Tab = 9,
  Lf = 10,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  UpperE = 69,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  LowerE = 101,
  LBrace = 123,
  RBrace = 125,
}

function ws(b: Buffer, i: number): number {
  for (let c = b[i]; c === Ch.Space || c === Ch.Tab || c === Ch.Lf || c === Ch.Cr; c = b[++i]);
  return i;
}

const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;
const ESCAPABLE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPABLE[c.charCodeAt(0)] = 1;

/** i at the opening quote; the index after the closing quote, or -1. Sets `escaped` when it held a backslash. */
let escaped = false;
function skipString(b: Buffer, i: number): number {
  escaped = false;
  const n = b.length;
  for (i++; i < n; i++) {
    const c = b[i]!;
    if (c === Ch.Quote) return i + 1;
    if (c < 0x20) return -1;
    if (c === Ch.Backslash) {
      escaped = true;
      const e = b[++i];
      if (e === 0x75 /* u */) {
        if (!(HEX[b[i + 1]!] && HEX[b[i + 2]!] && HEX[b[i + 3]!] && HEX[b[i + 4]!])) return -1;
        i += 4;
      } else if (e === undefined || !ESCAPABLE[e]) return -1;
    }
  }
  return -1;
}

function digits(b: Buffer, i: number): number {
  const start = i;
  for (let c = b[i]; c !== undefined && c >= Ch.Zero && c <= Ch.Nine; c = b[++i]);
  return i > start ? i : -1;
}

function skipNumber(b: Buffer, i: number): number {
  if (b[i] === Ch.Minus) i++;
  if (b[i] === Ch.Zero) i++;
  else if ((i = digits(b, i)) === -1) return -1;
  if (b[i] === Ch.Dot && (i = digits(b, i + 1)) === -1) return -1;
  if (b[i] === Ch.LowerE || b[i] === Ch.UpperE) {
    i++;
    if (b[i] === Ch.Plus || b[i] === Ch.Minus) i++;
    if ((i = digits(b, i)) === -1) return -1;
  }
  return i;
}

function skipWord(b: Buffer, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

/** i at a value (no leading whitespace); the index after it, or -1 when it is not valid JSON. */
function skipValue(b: Buffer, i: number, depth: number): number {
  const c = b[i];
  if (c === Ch.Quote) return skipString(b, i);
  if (c === Ch.LBrace || c === Ch.LBracket) {
    if (depth >= MAX_DEPTH) return -1;
    const object = c === Ch.LBrace;
    const close = object ? Ch.RBrace : Ch.RBracket;
    i = ws(b, i + 1);
    if (b[i] === close) return i + 1;
    for (;;) {
      if (object) {
        if (b[i] !== Ch.Quote || (i = skipString(b, i)) === -1) return -1;
        i = ws(b, i);
        if (b[i] !== Ch.Colon) return -1;
        i = ws(b, i + 1);
      }
      if ((i = skipValue(b, i, depth + 1)) === -1) return -1;
      i = ws(b, i);
      if (b[i] === close) return i + 1;
      if (b[i] !== Ch.Comma) return -1;
      i = ws(b, i + 1);
    }
  }
  if (c === 0x74 /* t */) return skipWord(b, i, 'true');
  if (c === 0x66 /* f */) return skipWord(b, i, 'false');
  if (c === 0x6e /* n */) return skipWord(b, i, 'null');
  if (c === Ch.Minus || (c !== undefined && c >= Ch.Zero && c <= Ch.Nine)) return skipNumber(b, i);
  return -1;
}

/** Whether the key at [start, end) (quotes included, no escapes) is `name`. */
function keyIs(b: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length + 2) return false;
  for (let k = 0; k < name.length; k++) if (b[start + 1 + k] !== name.charCodeAt(k)) return false;
  return true;
}

/** Scans an object's own keys for `isError: true`; undefined when a key has escapes or repeats isError. */
function isErrorTrue(b: Buffer, i: number, end: number): boolean | undefined {
  let found: boolean | undefined;
  i = ws(b, i + 1);
  if (b[i] === Ch.RBrace) return false;
  while (i < end) {
    const k = i;
    i = skipString(b, i);
    if (escaped) return undefined;
    const isKey = keyIs(b, k, i, 'isError');
    i = ws(b, ws(b, i) + 1);
    const v = i;
    i = skipValue(b, i, 1);
    if (isKey) {
      if (found !== undefined) return undefined;
      found = i - v === 4 && b[v] === 0x74;
    }
    i = ws(b, i);
    if (b[i] === Ch.RBrace) break;
    i = ws(b, i + 1);
  }
  return found ?? false;
}

function text(b: Buffer, start: number, end: number, hadEscape: boolean): string {
  return hadEscape ? (JSON.parse(b.toString('utf8', start, end)) as string) : b.toString('utf8', start + 1, end - 1);
}

/**
 * i at an object: the index after it, as skipValue finds it, but -1 also when one of its own keys is
 * spelled with escapes or appears twice (the ordinary path then reads it, and refuses a repeat).
 */
function skipPlainKeyedObject(b: Buffer, i: number): number {
  const keys = new Set<string>();
  i = ws(b, i + 1);
  if (b[i] === Ch.RBrace) return i + 1;
  for (;;) {
    if (b[i] !== Ch.Quote) return -1;
    const k = i;
    if ((i = skipString(b, i)) === -1 || escaped) return -1;
    const key = b.toString('latin1', k, i);
    if (keys.has(key)) return -1;
    keys.add(key);
    i = ws(b, i);
    if (b[i] !== Ch.Colon) return -1;
    if ((i = skipValue(b, ws(b, i + 1), 2)) === -1) return -1;
    i = ws(b, i);
    if (b[i] === Ch.RBrace) return i + 1;
    if (b[i] !== Ch.Comma) return -1;
    i = ws(b, i + 1);
  }
}

/** The envelope of one line (no newline), or undefined when the ordinary path must look at it. */
export function scanEnvelope(b: Buffer): Envelope | undefined {
  let i = ws(b, 0);
  if (b[i] !== Ch.LBrace) return undefined;
  const env: Envelope = { idStart: -1, idEnd: -1, hasParams: false, hasResult: false, hasError: false, resultIsError: false };
  let jsonrpc = false;
  let methodSeen = false;
  // Every key of the envelope, and of its params, appears once (a repeat is refused on the ordinary path).
  const keys = new Set<string>();
  i = ws(b, i + 1);
  if (b[i] === Ch.RBrace) return undefined;
  for (;;) {
    if (b[i] !== Ch.Quote) return undefined;
    const k = i;
    if ((i = skipString(b, i)) === -1) return undefined;
    const keyEscaped = escaped;
    const keyEnd = i;
    i = ws(b, i);
    if (b[i] !== Ch.Colon) return undefined;
    i = ws(b, i + 1);
    const v = i;
    // A key spelled with escapes could be any of ours: let JSON.parse decide.
    if (keyEscaped) return undefined;
    const key = b.toString('latin1', k, keyEnd);
    if (keys.has(key)) return undefined;
    keys.add(key);
    const params = b[v] === Ch.LBrace && keyIs(b, k, keyEnd, 'params');
    if ((i = params ? skipPlainKeyedObject(b, v) : skipValue(b, i, 1)) === -1) return undefined;
    const first = b[v];
    if (keyIs(b, k, keyEnd, 'jsonrpc')) {
      if (jsonrpc || i - v !== 5 || b.toString('latin1', v, i) !== '"2.0"') return undefined;
      jsonrpc = true;
    } else if (keyIs(b, k, keyEnd, 'id')) {
      if (env.idStart !== -1) return undefined;
      if (first === Ch.Quote) {
        skipString(b, v);
        env.id = text(b, v, i, escaped);
      } else if (first === Ch.Minus || (first !== undefined && first >= Ch.Zero && first <= Ch.Nine)) {
        const id = Number(b.toString('latin1', v, i));
        if (!Number.isFinite(id)) return undefined;
        env.id = id;
      } else return undefined;
      env.idStart = v;
      env.idEnd = i;
    } else if (keyIs(b, k, keyEnd, 'method')) {
      if (methodSeen || first !== Ch.Quote) return undefined;
      methodSeen = true;
      skipString(b, v);
      env.method = text(b, v, i, escaped);
    } else if (keyIs(b, k, keyEnd, 'params')) {
      if (env.hasParams || first !== Ch.LBrace) return undefined;
      env.hasParams = true;
    } else if (keyIs(b, k, keyEnd, 'result')) {
      if (env.hasResult || first !== Ch.LBrace) return undefined;
      env.hasResult = true;
      const isError = isErrorTrue(b, v, i);
      if (isError === undefined) return undefined;
      env.resultIsError = isError;
    } else if (keyIs(b, k, keyEnd, 'error')) {
      if (env.hasError) return undefined;
      env.hasError = true;
    }
    i = ws(b, i);
    if (b[i] === Ch.RBrace) break;
    if (b[i] !== Ch.Comma) return undefined;
    i = ws(b, i + 1);
  }
  if (ws(b, i + 1) !== b.length || !jsonrpc) return undefined;
  return env;
}

/** The line with its id replaced by `id` (already JSON), and a newline. */
export function withId(b: Buffer, env: Pick<Envelope, 'idStart' | 'idEnd'>, id: string): Buffer {
  if (env.idStart < 0) throw new Error('the line has no id to replace');
  const head = b.subarray(0, env.idStart);
  const tail = b.subarray(env.idEnd);
  const out = Buffer.allocUnsafe(head.length + Buffer.byteLength(id) + tail.length + 1);
  head.copy(out, 0);
  let at = head.length + out.write(id, head.length, 'utf8');
  at += tail.copy(out, at);
  out[at] = Ch.Lf;
  return out;
}
