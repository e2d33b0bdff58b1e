// What text can carry besides words: web addresses (with the host a person would miss behind a
// userinfo trick) and base64 blobs (decoded, and checked for smuggled instructions). A URL or blob can
// be longer than any window: one that reaches the end of its slice stays open, and the next windows
// look for its end, so no single step reads more than its own slice.
import { add, type Scan } from './context.js';
import { quote } from './finding-text.js';

const URL_RE = /\b(?:https?|ftp|file|wss?):\/\/[^\s<>"'`)\]}]+/gi;
const URL_REST = /[^\s<>"'`)\]}]*/y;
// A base64 run: 80 or more of these characters, with nothing of them just before it.
const MIN_BASE64 = 80;
const BASE64_AT = /[A-Za-z0-9+/_-]{80,}={0,2}/y;
const BASE64_REST = /[A-Za-z0-9+/_-]*={0,2}/y;
const RUN_REST = /[A-Za-z0-9+/_-]*/y;
const BASE64_CHAR = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') BASE64_CHAR[ch.charCodeAt(0)] = 1;
const isBase64Char = (code: number) => code < 128 && BASE64_CHAR[code] === 1;
const BLOCK = MIN_BASE64 / 2;

const skipRun = (slice: string, at: number) => {
  RUN_REST.lastIndex = at;
  RUN_REST.exec(slice);
  return RUN_REST.lastIndex;
};

/**
 * The first base64 run that starts at or after `at`. A run of 80 holds a whole block of 40 of a grid
 * laid from `at`, so each block is read only up to its first other character (a space a few letters
 * in, in prose) and the rest skipped: a regex would try every word start instead.
 */
function nextBase64(slice: string, at: number): RegExpExecArray | null {
  // Inside a run that began earlier, no run starts.
  if (at > 0 && isBase64Char(slice.charCodeAt(at - 1))) at = skipRun(slice, at);
  for (let block = at; block + BLOCK <= slice.length; block += BLOCK) {
    let i = block;
    while (i < block + BLOCK && isBase64Char(slice.charCodeAt(i))) i++;
    if (i < block + BLOCK) continue;
    // A whole block: its run starts after the last other character before it (at most a block back).
    let start = block;
    while (start > at && isBase64Char(slice.charCodeAt(start - 1))) start--;
    BASE64_AT.lastIndex = start;
    const m = BASE64_AT.exec(slice);
    if (m) return m;
    // Too short: the grid starts again after it.
    at = skipRun(slice, block);
    block = at - BLOCK;
  }
  return null;
}
// Only the start of a blob is decoded: enough to show it and to find smuggled instructions near its top.
const DECODE_CHARS = 64 * 1024;

function decodeBase64(blob: string): string | undefined {
  try {
    const std = blob.slice(0, DECODE_CHARS).replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    // One character per byte; printable ASCII bytes are their own UTF-8, so no decoder is needed.
    const bytes = atob(std.slice(0, std.length - (std.length % 4)));
    return /^[\x20-\x7e\n\t\r]+$/.test(bytes) ? bytes : undefined;
  } catch {
    return undefined;
  }
}

interface OpenRun {
  start: number;
  upper: boolean;
  lower: boolean;
  digit: boolean;
}

// Notes which kinds of characters a piece of a base64 run has (each test stops at its first hit).
function mixCheck(run: OpenRun, piece: string): OpenRun {
  run.upper ||= /[A-Z]/.test(piece);
  run.lower ||= /[a-z]/.test(piece);
  run.digit ||= /\d/.test(piece);
  return run;
}

/** Where a run that reached the end of an earlier slice ends: undefined while it goes on past this one. */
function runEnd(rest: RegExp, slice: string, sliceStart: number, at: number, textLength: number): number | undefined {
  rest.lastIndex = at - sliceStart;
  rest.exec(slice);
  if (rest.lastIndex >= slice.length && sliceStart + slice.length < textLength) return undefined;
  return sliceStart + rest.lastIndex;
}

/** Web addresses in one text: counted, the first few hosts named, one finding. */
export class UrlScan {
  private resume = 0;
  private open = false;
  private readonly urls = { count: 0, start: -1, end: -1, hosts: new Set<string>() };

  constructor(private readonly scan: Scan) {}

  step(slice: string, sliceStart: number, from: number, to: number): void {
    // Every URL holds "://" a few characters after its start, so a slice without ':' has none.
    if (!this.open && !slice.includes(':')) return;
    if (this.open) {
      const end = runEnd(URL_REST, slice, sliceStart, from, this.scan.text.length);
      if (end === undefined) return;
      this.open = false;
      this.resume = end;
    }
    URL_RE.lastIndex = Math.max(from, this.resume) - sliceStart;
    for (let m = URL_RE.exec(slice); m; m = URL_RE.exec(slice)) {
      const start = sliceStart + m.index;
      if (start >= to) break;
      const end = start + m[0].length;
      if (this.urls.count++ === 0) Object.assign(this.urls, { start, end });
      // The host is what follows the last @ of the authority: "https://docs.example@evil.example/".
      const host = (m[0].split('/')[2] ?? '').split(/[?#]/)[0]?.split('@').pop() ?? '';
      if (this.urls.hosts.size < 4) this.urls.hosts.add(host);
      this.resume = end;
      if (end - sliceStart >= slice.length) {
        this.open = end < this.scan.text.length;
        return;
      }
      URL_RE.lastIndex = end - sliceStart;
    }
  }

  finish(): void {
    if (this.urls.count === 0) return;
    const hosts = [...this.urls.hosts];
    const shown =
      hosts
        .slice(0, 3)
        .map((h) => quote(h, 40))
        .join(', ') + (hosts.length > 3 ? ', …' : '');
    add(this.scan, 'embedded-url', 'url', `${this.scan.noun} contains ${this.urls.count} web address(es) (${shown}).`, this.urls.start, this.urls.end);
  }
}

/**
 * The first base64 blob of one text. `smuggles` says whether decoded text holds a dangerous word
 * finding (instructions, secret paths): then the blob is smuggling, not data, wherever it sits.
 */
export class Base64Scan {
  private resume = 0;
  private open: OpenRun | undefined;
  private blob: { start: number; end: number } | undefined;

  constructor(
    private readonly scan: Scan,
    private readonly smuggles: (decoded: string) => boolean,
  ) {}

  step(slice: string, sliceStart: number, from: number, to: number): void {
    if (this.blob) return;
    const open = this.open;
    if (open) {
      const end = runEnd(BASE64_REST, slice, sliceStart, from, this.scan.text.length);
      mixCheck(open, slice.slice(from - sliceStart, end === undefined ? slice.length : end - sliceStart));
      if (end === undefined) return;
      this.open = undefined;
      this.resume = end;
      if (open.upper && open.lower && open.digit) return void (this.blob = { start: open.start, end });
    }
    for (let m = nextBase64(slice, Math.max(from, this.resume) - sliceStart); m; m = nextBase64(slice, m.index + m[0].length)) {
      const start = sliceStart + m.index;
      if (start >= to) break;
      const end = start + m[0].length;
      this.resume = end;
      const run = mixCheck({ start, upper: false, lower: false, digit: false }, m[0]);
      if (end - sliceStart >= slice.length && end < this.scan.text.length) {
        this.open = run;
        return;
      }
      // Real base64 mixes cases and digits; long snake_case words or hex digests do not.
      if (run.upper && run.lower && run.digit) return void (this.blob = { start, end });
    }
  }

  finish(): void {
    if (!this.blob) return;
    const { start, end } = this.blob;
    const decoded = decodeBase64(this.scan.text.slice(start, Math.min(end, start + DECODE_CHARS)));
    const what = decoded ? `that decodes to text starting ${quote(decoded, 80)}` : 'that could hide data';
    const rule = this.smuggles(decoded ?? '') ? 'smuggled' : 'base64';
    add(this.scan, 'base64-blob', rule, `${this.scan.noun} contains a ${end - start}-character base64 blob ${what}.`, start, end);
  }
}
