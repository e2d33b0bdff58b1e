// Looks for known tool-poisoning tricks in text a server (or the model) wrote: hidden
// characters, instructions aimed at the model, references to secrets or other servers' tools.
// Heuristics only WARN, they never decide: a person reads the finding and judges.
import { AnchorSearch, escapeRegExp, onlyBase64, type AnchorRule } from './anchor-search.js';
import { escapeControl } from './escape.js';
import type { ToolDefinition } from './tool.js';

export type Severity = 'danger' | 'warning' | 'info';
export type FindingCode =
  | 'invisible-characters'
  | 'bidi-control'
  | 'unicode-tags'
  | 'control-characters'
  | 'model-instructions'
  | 'cross-server-reference'
  | 'secret-reference'
  | 'long-description'
  | 'embedded-url'
  | 'base64-blob'
  /** Set by self-protection (shared/protected-paths.ts), not by the text scan. */
  | 'protected-path'
  /** Set by the inputSchema check (electron/broker/schema-check.ts). */
  | 'schema-violation'
  | 'schema-invalid'
  | 'undeclared-argument'
  /** Set by the name checks (shared/name-checks.ts). */
  | 'confusable-name'
  | 'name-format'
  | 'server-identity';

export interface Finding {
  code: FindingCode;
  severity: Severity;
  /** One plain sentence; any server text in it is already escaped. */
  message: string;
  /** The offending text with some context, made visible with escapeControl. */
  excerpt: string;
  /** Set by scanTool: which part of the definition, e.g. 'inputSchema.properties.sidenote.description'. */
  field?: string;
}

export interface ServerTools {
  server: string;
  tools: string[];
}

export interface ScanContext {
  /** Tools of the OTHER configured servers (not the one whose text is scanned). */
  otherServers: ServerTools[];
  where: 'description' | 'name' | 'argument';
}

type Where = ScanContext['where'];

// Severity per rule for [description, name, argument]. Arguments are softer: the model writes
// them, often from the user's own request, and file contents legitimately hold odd bytes.
const SEVERITY = {
  invisible: ['danger', 'danger', 'warning'],
  smuggled: ['danger', 'danger', 'danger'],
  tags: ['danger', 'danger', 'danger'],
  bidiOverride: ['danger', 'danger', 'warning'],
  bidiMark: ['warning', 'danger', 'info'],
  ansi: ['danger', 'danger', 'warning'],
  control: ['warning', 'danger', 'info'],
  injection: ['danger', 'danger', 'warning'],
  directive: ['warning', 'warning', 'info'],
  crossDistinct: ['warning', 'warning', 'info'],
  crossGeneric: ['info', 'info', 'info'],
  secretFile: ['danger', 'danger', 'warning'],
  secretPhrase: ['warning', 'warning', 'info'],
  secretWord: ['info', 'info', 'info'],
  long: ['warning', 'warning', 'info'],
  url: ['warning', 'warning', 'info'],
  base64: ['warning', 'warning', 'info'],
} as const satisfies Record<string, readonly [Severity, Severity, Severity]>;
type Rule = keyof typeof SEVERITY;
const WHERE_INDEX: Record<Where, 0 | 1 | 2> = { description: 0, name: 1, argument: 2 };

export const LONG_DESCRIPTION_CHARS = 2000;
const CONTEXT_CHARS = 60;
const MATCH_CHARS = 120;

// Invisible characters escapeControl leaves alone (soft hyphen, fillers, variation selectors...).
const INVISIBLE_BODY = '\\u00ad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u2065\\u3164\\uffa0\\ufff9-\\ufffb\\u{1d173}-\\u{1d17a}';
const SELECTORS = '\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}';
const EXTRA_INVISIBLE = new RegExp(`[${INVISIBLE_BODY}${SELECTORS}]`, 'u');
// In running text a lone variation selector (emoji style, CJK variants) is everyday; runs of them are not.
const EXTRA_INVISIBLE_TEXT = new RegExp(`[${INVISIBLE_BODY}]|[${SELECTORS}]{2,}`, 'gu');
const hex = (cp: number) => cp.toString(16).toUpperCase().padStart(4, '0');

function escapeCodePoint(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

// Reveals one code point: escapeControl's escapes, plus the extra invisibles above.
function reveal(ch: string): string {
  const escaped = escapeControl(ch);
  return escaped === ch && EXTRA_INVISIBLE.test(ch) ? escapeCodePoint(ch) : escaped;
}

/** escapeControl, plus the invisible characters it leaves alone: for showing whole server texts. */
export function revealText(text: string, opts?: { keepNewlines?: boolean }): string {
  return escapeControl(text, opts).replace(EXTRA_INVISIBLE_TEXT, (run) => Array.from(run, escapeCodePoint).join(''));
}

// Escapes and clips to about `max` visible characters, from the start or the end. Only the few
// code points that can show are looked at, so a 10 MB match costs no more than a short one.
function revealClip(text: string, max: number, fromEnd = false): string {
  const reach = 2 * max + 2;
  const part = text.length <= reach ? text : fromEnd ? text.slice(boundary(text, text.length - reach)) : text.slice(0, boundary(text, reach));
  const cps = Array.from(part);
  if (fromEnd) cps.reverse();
  let out: string[] = [];
  let used = 0;
  for (const ch of cps) {
    const shown = reveal(ch);
    if (used + shown.length > max) {
      out.push('…');
      break;
    }
    out.push(shown);
    used += shown.length;
  }
  if (part.length < text.length && out[out.length - 1] !== '…') out.push('…');
  if (fromEnd) out = out.reverse();
  return out.join('');
}

// Never start or end a slice between the halves of a surrogate pair.
function boundary(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return i > 0 && code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}

// Squashed to one line, except a character finding's match, which is escaped exactly.
const squash = (s: string) => s.replace(/\r?\n|\t/g, ' ');

function excerptAt(text: string, start: number, end: number, exact: boolean): string {
  const from = boundary(text, Math.max(0, start - CONTEXT_CHARS));
  const to = boundary(text, Math.min(text.length, end + CONTEXT_CHARS));
  const pre = revealClip(squash(text.slice(from, start)), CONTEXT_CHARS, true);
  // Only the start of a long match can show: clip before squashing.
  const shownEnd = end - start > 2 * MATCH_CHARS + 2 ? boundary(text, start + 2 * MATCH_CHARS + 2) : end;
  const matched = text.slice(start, shownEnd);
  const mid = revealClip(exact ? matched : squash(matched), MATCH_CHARS);
  const post = revealClip(squash(text.slice(end, to)), CONTEXT_CHARS);
  const lead = from > 0 && !pre.startsWith('…') ? '…' : '';
  const tail = to < text.length && !post.endsWith('…') ? '…' : '';
  return `${lead}${pre}${mid}${post}${tail}`;
}

/** Server text quoted inside a message: escaped and short. */
const quote = (s: string, max = 60) => `"${revealClip(squash(s.length > 4 * max ? s.slice(0, boundary(s, 4 * max)) : s), max)}"`;

interface Scan {
  text: string;
  where: Where;
  noun: string;
  findings: Finding[];
}

function add(scan: Scan, code: FindingCode, rule: Rule, message: string, start: number, end: number, exact = false): void {
  const severity = SEVERITY[rule][WHERE_INDEX[scan.where]];
  scan.findings.push({ code, severity, message, excerpt: excerptAt(scan.text, start, end, exact) });
}

// ---------------------------------------------------------------------------------------------
// Characters

const NAMES: Record<number, string> = {
  0x200b: 'zero-width space',
  0x200c: 'zero-width non-joiner',
  0x200d: 'zero-width joiner',
  0x2060: 'word joiner',
  0xfeff: 'zero-width no-break space',
  0x00ad: 'soft hyphen',
  0x3164: 'Hangul filler',
  0x202a: 'left-to-right embedding',
  0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting',
  0x202d: 'left-to-right override',
  0x202e: 'right-to-left override',
  0x2066: 'left-to-right isolate',
  0x2067: 'right-to-left isolate',
  0x2068: 'first strong isolate',
  0x2069: 'pop directional isolate',
  0x200f: 'right-to-left mark',
  0x1b: 'escape',
};
const describeCps = (cps: Set<number>) =>
  [...cps].slice(0, 3).map((cp) => `U+${hex(cp)}${NAMES[cp] ? ` ${NAMES[cp]}` : ''}`).join(', ') + (cps.size > 3 ? ', …' : '');

const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
const isVariationSelector = (cp: number) => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
const PICTOGRAPHIC = /^[\p{Extended_Pictographic}\u{1f3fb}-\u{1f3ff}\ufe0f]$/u;
// Scripts whose spelling uses joiners (Arabic, Syriac, N'Ko, Mongolian, Brahmic), not e.g. Cyrillic lookalikes.
const JOINING_SCRIPTS = ['Arabic', 'Syriac', 'Nko', 'Mongolian', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala'];
const JOINING_SCRIPT = new RegExp(`^[${JOINING_SCRIPTS.map((name) => `\\p{Script_Extensions=${name}}`).join('')}]$`, 'u');

// Emoji and joining-script tests per code point, remembered: a text with an emoji every few words
// would otherwise run two Unicode-property regexes per joiner.
const PICTO = 1;
const JOINING = 2;
const classes = new Map<number, number>();
function classOf(cp: number): number {
  let c = classes.get(cp);
  if (c === undefined) {
    const ch = String.fromCodePoint(cp);
    c = (PICTOGRAPHIC.test(ch) ? PICTO : 0) | (JOINING_SCRIPT.test(ch) ? JOINING : 0);
    if (classes.size < 65_536) classes.set(cp, c);
  }
  return c;
}

type CharKind = 'invisible' | 'bidiOverride' | 'bidiMark' | 'ansi' | 'control';

function charKind(cp: number): CharKind | undefined {
  if (cp === 0x1b || cp === 0x9b) return 'ansi';
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029) return 'control';
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return 'bidiOverride';
  if (cp === 0x200e || cp === 0x200f || cp === 0x061c) return 'bidiMark';
  if ((cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2065) || cp === 0xfeff) return 'invisible';
  if (EXTRA_INVISIBLE.test(String.fromCodePoint(cp)) && !isVariationSelector(cp)) return 'invisible';
  return undefined;
}

// Characters with everyday legitimate uses, skipped so real text does not raise alarms.
function legitimate(text: string, i: number, cp: number, where: Where): boolean {
  if (cp === 0x09 || cp === 0x0a) return true;
  if (cp === 0x0d) return text.charCodeAt(i + 1) === 0x0a; // CRLF, not a bare CR that overwrites a line
  if (cp === 0xfeff && i === 0 && where === 'argument') return true; // a file's byte-order mark
  if (cp === 0x200c || cp === 0x200d) {
    const prev = classOf(text.codePointAt(boundary(text, i - 1)) ?? 0);
    const next = classOf(text.codePointAt(i + 1) ?? 0);
    // Emoji sequences (family, rainbow flag) and joining scripts such as Persian or Devanagari need them.
    if (cp === 0x200d && prev & PICTO && next & PICTO) return true;
    if (prev & JOINING && next & JOINING) return true;
  }
  return false;
}

// A run of code points starting at i that all satisfy `test`.
function runAt(text: string, i: number, test: (cp: number) => boolean): { end: number; cps: number[] } {
  const cps: number[] = [];
  let end = i;
  for (let cp = text.codePointAt(end); cp !== undefined && test(cp); cp = text.codePointAt(end)) {
    cps.push(cp);
    end += cp > 0xffff ? 2 : 1;
  }
  return { end, cps };
}

// Tag characters U+E0020..U+E007E mirror printable ASCII: the "ASCII smuggling" trick.
const decodeTags = (cps: number[]) =>
  cps.filter((cp) => cp >= 0xe0020 && cp <= 0xe007e).map((cp) => String.fromCharCode(cp - 0xe0000)).join('');

// Subdivision flags (U+1F3F4 black flag + lowercase tags + cancel tag) are the one everyday use of tag characters.
function isFlag(text: string, start: number, cps: number[]): boolean {
  const body = cps.slice(0, -1);
  return text.codePointAt(start - 2) === 0x1f3f4 && cps[cps.length - 1] === 0xe007f && body.length >= 2 && body.length <= 6 &&
    body.every((cp) => (cp >= 0xe0061 && cp <= 0xe007a) || (cp >= 0xe0030 && cp <= 0xe0039));
}

// Variation selectors can carry one byte each (the "emoji smuggling" trick).
function decodeSelectors(cps: number[]): string | undefined {
  const bytes = Uint8Array.from(cps, (cp) => (cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16));
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return /^[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n\t]+$/u.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

interface Tally {
  start: number;
  end: number;
  count: number;
  cps: Set<number>;
}

// Every character any rule looks at; all others are skipped by one native search, not a test per character.
const CANDIDATE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\u3164\ufeff\uffa0\ufff9-\ufffb\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}]|[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]{2}/gu;
const MAX_DECODED_TAGS = 1000;
const MAX_SELECTOR_FINDINGS = 3;

// ---------------------------------------------------------------------------------------------
// Words

export interface Pattern extends AnchorRule {
  rule: Rule;
  re: RegExp;
  message: (noun: string, match: string) => string;
}

// Bounded gaps ({0,80}) keep every pattern linear on hostile input.
const INSTRUCTIONS: Pattern[] = [
  {
    rule: 'injection',
    anchors: ['<'],
    re: /<\s*\/?\s*(?:important|system|system[_ -]?(?:prompt|message|instructions?)|critical|admin|hidden|assistant|(?:ai|user)[_ -]?instructions?|note[_ -]?to[_ -]?(?:ai|assistant|model|llm))\s*(?:\s[^<>]{0,40})?>|<\s*\/\s*(?:instructions?|secret|context|rules)\s*>/i,
    message: (noun, m) => `${noun} contains the tag ${quote(m)}, a known way to slip instructions to the model.`,
  },
  {
    rule: 'injection',
    anchors: ['<|', '[inst', '[/inst', '<<'],
    re: /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i,
    message: (noun, m) => `${noun} contains chat-template markup (${quote(m)}) that can impersonate the system prompt.`,
  },
  {
    rule: 'injection',
    anchors: ['user', 'mention'],
    needs: /\s/,
    re: /\b(?:do\s+not|don['’]t|never|must\s+not|should\s+not)\s+(?:\w+\s+){0,3}?(?:tell|mention|inform|notify|reveal|show|alert|disclose|let)\w*\b[^.!?]{0,80}?\busers?\b|\b(?:do\s+not|don['’]t|never)\s+mention\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking|letting)\s+(?:the\s+)?users?\b|\bthe\s+user\s+(?:must|should|need)\s*(?:not|n['’]t)\s+(?:know|see|be\s+told)\b/i,
    message: (noun, m) => `${noun} asks the model to keep something from you (${quote(m)}).`,
  },
  {
    rule: 'injection',
    anchors: ['ignore', 'disregard', 'forget', 'override'],
    needs: /\s/,
    re: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|other|system|original)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages)\b/i,
    message: (noun) => `${noun} tells the model to ignore its earlier instructions.`,
  },
  {
    rule: 'directive',
    anchors: ['before'],
    needs: /\s/,
    re: /\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|the|any)\s+(?:tool|function)\b[^.!?]{0,80}?\b(?:read|open|fetch|cat|load|send|include|pass|upload)\b/i,
    message: (noun, m) => `${noun} tells the model to do something before using the tool (${quote(m)}).`,
  },
  {
    rule: 'directive',
    anchors: ['first', 'before'],
    needs: /\s/,
    re: /\byou\s+(?:must|need\s+to|have\s+to)\b[^.!?]{0,80}?\bfirst\b|\byou\s+first\s+(?:must|need\s+to|have\s+to)\b|\b(?:always|must)\s+(?:call|use|run)\s+this\s+tool\s+(?:first|before)\b/i,
    message: (noun, m) => `${noun} tells the model it must do something first (${quote(m)}).`,
  },
];

const SECRETS: Pattern[] = [
  {
    rule: 'secretFile',
    anchors: ['.ssh', 'id_', 'authorized_keys'],
    re: /(?<![\w.-])\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b/i,
    message: (noun, m) => `${noun} refers to SSH keys (${quote(m)}).`,
  },
  {
    rule: 'secretFile',
    anchors: ['.aws', 'aws_secret_access_key'],
    re: /\.aws[\\/](?:credentials|config)\b|\baws_secret_access_key\b/i,
    message: (noun, m) => `${noun} refers to AWS credentials (${quote(m)}).`,
  },
  {
    rule: 'secretFile',
    anchors: ['mcp', 'claude', '.cursor', '.codeium'],
    needs: /\./,
    re: /\bmcp(?:_config)?\.json\b|\bclaude_desktop_config\.json\b|\.claude\.json\b|(?<![\w.-])\.cursor\b|\.codeium[\\/]windsurf\b/i,
    message: (noun, m) => `${noun} refers to AI client configuration (${quote(m)}), which holds other servers' credentials.`,
  },
  {
    rule: 'secretFile',
    anchors: ['.netrc', '.git-credentials', '.pgpass', '.npmrc', '.pypirc', '.gnupg', '.docker', '.kube'],
    re: /(?<![\w.-])\.(?:netrc|git-credentials|pgpass|npmrc|pypirc|gnupg)\b|\.docker[\\/]config\.json\b|\.kube[\\/]config\b/i,
    message: (noun, m) => `${noun} refers to a credentials file (${quote(m)}).`,
  },
  {
    rule: 'secretPhrase',
    anchors: ['.env'],
    re: /(?<![\w.$-])\.env(?:\.[\w-]+)?\b/i,
    message: (noun, m) => `${noun} refers to an environment file (${quote(m)}), which often holds secrets.`,
  },
  {
    rule: 'secretPhrase',
    // Every alternative's first word, so each anchor sits at the match's leading \b.
    anchors: ['api', 'pass', 'private', 'secret', 'client', 'access', 'auth', 'bearer', 'refresh', 'session', 'oauth', 'github', 'seed'],
    re: /\b(?:api[\s_-]?keys?|apikey|passwords?|passwd|passphrase|private[\s_-]?keys?|secret[\s_-]?keys?|client[\s_-]?secrets?|(?:access|auth|bearer|refresh|session|oauth|github|api)[\s_-]?tokens?|seed\s+phrase)\b/i,
    message: (noun, m) => `${noun} mentions credentials (${quote(m)}).`,
  },
];
// Bare words: "tokens" in pagination or LLM prose is normal, so these stay informational.
const SECRET_WORDS: Pattern = {
  rule: 'secretWord',
  anchors: ['token', 'secret', 'credential'],
  re: /\b(?:tokens?|secrets?|credentials?)\b/i,
  message: (noun, m) => `${noun} uses the word ${quote(m)}, which can refer to credentials.`,
};

/** Every word rule in the order the prefilter numbers them (its tests check it never misses one). */
export const WORD_RULES: readonly Pattern[] = [...INSTRUCTIONS, ...SECRETS, SECRET_WORDS];

// Names like send_email or getUser are distinctive; plain words like "search" appear in prose.
const distinctive = (name: string) => /[_.\-\d]/.test(name) || /[a-z][A-Z]/.test(name);

interface CrossPattern extends AnchorRule {
  server: string;
  tool: string;
  re: RegExp;
}

/** Every word rule, in one list: instructions, secrets, the bare secret words, then other servers' tools. */
interface Rules {
  cross: CrossPattern[];
  search: AnchorSearch;
}
const SECRETS_AT = INSTRUCTIONS.length;
const SECRET_WORDS_AT = SECRETS_AT + SECRETS.length;
const CROSS_AT = SECRET_WORDS_AT + 1;

// Compiled once per list of servers (an argument walk scans many strings against the same list).
const rulesCache = new WeakMap<ServerTools[], Rules>();
function rulesFor(servers: ServerTools[]): Rules {
  let rules = rulesCache.get(servers);
  if (!rules) {
    const cross = servers.flatMap(({ server, tools }) => tools
      .filter((tool) => tool.trim().length >= 2 && tool.length <= 512)
      .map((tool) => ({ server, tool, anchors: [tool], re: new RegExp(`(?<![\\w-])${escapeRegExp(tool)}(?![\\w-])`, 'gi') })));
    rules = { cross, search: new AnchorSearch([...WORD_RULES, ...cross]) };
    rulesCache.set(servers, rules);
  }
  return rules;
}
const NO_SERVERS = rulesFor([]);

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

const globalCopies = new WeakMap<RegExp, RegExp>();
const globalOf = (re: RegExp) => {
  let g = globalCopies.get(re);
  if (!g) globalCopies.set(re, (g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`)));
  return g;
};

/** Texts are scanned in windows of this many UTF-16 units; an async caller yields between them. */
export const SCAN_WINDOW = 64 * 1024;
// Every word pattern is bounded (gaps of at most 80), so a match that starts in a window ends in its overlap.
const OVERLAP = 1024;
const LOOKBEHIND = 16;

/**
 * One text, scanned window by window in linear time: each rule remembers where it stopped, so runs
 * and matches that cross a window edge are seen once. `wordsOnly` runs just the instruction and secret rules.
 */
class TextScan {
  private readonly scan: Scan;
  private charPos = 0;
  private readonly tallies = new Map<CharKind, Tally>();
  private readonly tags = { start: -1, end: -1, count: 0, decoded: [] as string[], decodedLength: 0 };
  private selectorFindings = 0;
  private readonly instructions: Array<Finding | undefined> = [];
  private readonly secrets: Array<Finding | undefined> = [];
  private secretWord: Finding | undefined;
  private readonly cross: Array<Finding | undefined> = [];
  private readonly rules: Rules;
  private urlResume = 0;
  private readonly urls = { count: 0, start: -1, end: -1, hosts: new Set<string>() };
  private urlOpen = false;
  private b64Resume = 0;
  private b64Open: OpenRun | undefined;
  private blob: { start: number; end: number } | undefined;

  constructor(text: string, where: Where, noun: string, servers: ServerTools[], private readonly wordsOnly = false) {
    this.scan = { text, where, noun, findings: [] };
    this.rules = servers.length ? rulesFor(servers) : NO_SERVERS;
  }

  get length(): number {
    return this.scan.text.length;
  }

  /** The word rules still unmatched: indexes into the rule list (see Rules). */
  private wanted(): number[] {
    const wanted: number[] = [];
    INSTRUCTIONS.forEach((_, k) => this.instructions[k] || wanted.push(k));
    SECRETS.forEach((_, k) => this.secrets[k] || wanted.push(SECRETS_AT + k));
    if (!this.secretWord) wanted.push(SECRET_WORDS_AT);
    if (!this.wordsOnly) this.rules.cross.forEach((_, k) => this.cross[k] || wanted.push(CROSS_AT + k));
    return wanted;
  }

  /** Scans [from, to); windows must be given in order, edges on code point boundaries. */
  step(from: number, to: number): void {
    const { text, noun } = this.scan;
    const sliceStart = Math.max(0, from - LOOKBEHIND);
    const sliceEnd = Math.min(text.length, to + OVERLAP);
    const slice = text.slice(sliceStart, sliceEnd);
    const base64 = onlyBase64(slice);
    // Base64 characters are all plain ASCII: no character rule has anything to look at.
    if (!this.wordsOnly) {
      if (base64) this.charPos = Math.max(this.charPos, to);
      else this.stepCharacters(from, to);
    }
    const first = (re: RegExp, at: number) => {
      const g = globalOf(re);
      g.lastIndex = at - sliceStart;
      const m = g.exec(slice);
      return m && sliceStart + m.index < to ? { index: sliceStart + m.index, text: m[0] } : undefined;
    };
    // Full regexes run only for the rules whose anchors this slice holds.
    for (const r of this.rules.search.hits(slice, sliceStart === 0, this.wanted(), base64)) {
      const pattern = r < SECRETS_AT ? INSTRUCTIONS[r]! : r < SECRET_WORDS_AT ? SECRETS[r - SECRETS_AT]! : r === SECRET_WORDS_AT ? SECRET_WORDS : undefined;
      if (pattern) {
        const m = first(pattern.re, from);
        if (!m) continue;
        const code = r < SECRETS_AT ? 'model-instructions' : 'secret-reference';
        const finding = this.finding(code, pattern.rule, pattern.message(noun, m.text), m.index, m.index + m.text.length);
        if (r < SECRETS_AT) this.instructions[r] = finding;
        else if (r < SECRET_WORDS_AT) this.secrets[r - SECRETS_AT] = finding;
        else this.secretWord = finding;
        continue;
      }
      const { server, tool, re } = this.rules.cross[r - CROSS_AT]!;
      const m = first(re, from);
      if (!m) continue;
      const rule = distinctive(tool) ? 'crossDistinct' : 'crossGeneric';
      this.cross[r - CROSS_AT] = this.finding('cross-server-reference', rule, `${noun} mentions ${quote(tool)}, a tool of the server ${quote(server)}.`, m.index, m.index + m.text.length);
    }
    if (this.wordsOnly) return;
    this.stepUrls(slice, sliceStart, from, to);
    if (!this.blob) this.stepBase64(slice, sliceStart, from, to);
  }

  /**
   * A URL or base64 run can be longer than any window: one that reaches the end of its slice stays
   * open, and the next windows look for its end, so no single step reads more than its own slice.
   * Returns the end once found, undefined while it goes on.
   */
  private runEnd(rest: RegExp, slice: string, sliceStart: number, at: number): number | undefined {
    rest.lastIndex = at - sliceStart;
    rest.exec(slice);
    if (rest.lastIndex >= slice.length && sliceStart + slice.length < this.scan.text.length) return undefined;
    return sliceStart + rest.lastIndex;
  }

  private stepUrls(slice: string, sliceStart: number, from: number, to: number): void {
    // Every URL holds "://" a few characters after its start, so a slice without ':' has none.
    if (!this.urlOpen && !slice.includes(':')) return;
    if (this.urlOpen) {
      const end = this.runEnd(URL_REST, slice, sliceStart, from);
      if (end === undefined) return;
      this.urlOpen = false;
      this.urlResume = end;
    }
    URL_RE.lastIndex = Math.max(from, this.urlResume) - sliceStart;
    for (let m = URL_RE.exec(slice); m; m = URL_RE.exec(slice)) {
      const start = sliceStart + m.index;
      if (start >= to) break;
      const end = start + m[0].length;
      if (this.urls.count++ === 0) Object.assign(this.urls, { start, end });
      // The host is what follows the last @ of the authority: "https://docs.example@evil.example/".
      const host = (m[0].split('/')[2] ?? '').split(/[?#]/)[0]?.split('@').pop() ?? '';
      if (this.urls.hosts.size < 4) this.urls.hosts.add(host);
      this.urlResume = end;
      if (end - sliceStart >= slice.length) {
        this.urlOpen = end < this.scan.text.length;
        return;
      }
      URL_RE.lastIndex = end - sliceStart;
    }
  }

  private stepBase64(slice: string, sliceStart: number, from: number, to: number): void {
    const open = this.b64Open;
    if (open) {
      const end = this.runEnd(BASE64_REST, slice, sliceStart, from);
      mixCheck(open, slice.slice(from - sliceStart, end === undefined ? slice.length : end - sliceStart));
      if (end === undefined) return;
      this.b64Open = undefined;
      this.b64Resume = end;
      if (open.upper && open.lower && open.digit) return void (this.blob = { start: open.start, end });
    }
    for (let m = nextBase64(slice, Math.max(from, this.b64Resume) - sliceStart); m; m = nextBase64(slice, m.index + m[0].length)) {
      const start = sliceStart + m.index;
      if (start >= to) break;
      const end = start + m[0].length;
      this.b64Resume = end;
      const run = mixCheck({ start, upper: false, lower: false, digit: false }, m[0]);
      if (end - sliceStart >= slice.length && end < this.scan.text.length) {
        this.b64Open = run;
        return;
      }
      // Real base64 mixes cases and digits; long snake_case words or hex digests do not.
      if (run.upper && run.lower && run.digit) return void (this.blob = { start, end });
    }
  }

  private stepCharacters(from: number, to: number): void {
    const { text } = this.scan;
    if (this.charPos >= to) return;
    const start = Math.max(from, this.charPos);
    const slice = text.slice(start, to);
    CANDIDATE.lastIndex = 0;
    for (let m = CANDIDATE.exec(slice); m; m = CANDIDATE.exec(slice)) {
      const next = this.character(start + m.index);
      this.charPos = next;
      if (next >= to) return;
      CANDIDATE.lastIndex = next - start;
    }
    this.charPos = to;
  }

  /** Looks at the code point at i (one the candidate search stopped at); returns where to go on. */
  private character(i: number): number {
    const scan = this.scan;
    const { text, noun } = scan;
    const cp = text.codePointAt(i) ?? 0;
    if (isTag(cp)) {
      const run = runAt(text, i, isTag);
      if (!isFlag(text, i, run.cps)) {
        if (this.tags.start < 0) Object.assign(this.tags, { start: i, end: run.end });
        this.tags.count += run.cps.length;
        if (this.tags.decodedLength < MAX_DECODED_TAGS) {
          const decoded = decodeTags(run.cps);
          this.tags.decoded.push(decoded);
          this.tags.decodedLength += decoded.length;
        }
      }
      return run.end;
    }
    if (isVariationSelector(cp)) {
      // A lone selector (emoji presentation) is everyday text: skip it without building a run.
      const width = cp > 0xffff ? 2 : 1;
      if (!isVariationSelector(text.codePointAt(i + width) ?? 0)) return i + width;
      const run = runAt(text, i, isVariationSelector);
      if (run.cps.length >= 2 && this.selectorFindings++ < MAX_SELECTOR_FINDINGS) {
        const hidden = decodeSelectors(run.cps);
        const what = hidden ? `that decode to the hidden text ${quote(hidden, 120)}` : 'that can carry hidden data';
        add(scan, 'invisible-characters', 'smuggled', `${noun} contains ${run.cps.length} variation selectors in a row ${what}.`, i, run.end, true);
      }
      return run.end;
    }
    const kind = charKind(cp);
    if (kind && !legitimate(text, i, cp, scan.where)) {
      const tally = this.tallies.get(kind);
      if (tally) {
        tally.count++;
        if (tally.cps.size < 16) tally.cps.add(cp);
      } else {
        const run = runAt(text, i, (c) => charKind(c) === kind);
        this.tallies.set(kind, { start: i, end: run.end, count: 1, cps: new Set([cp]) });
      }
    }
    return i + (cp > 0xffff ? 2 : 1);
  }

  private finding(code: FindingCode, rule: Rule, message: string, start: number, end: number): Finding {
    const scan: Scan = { ...this.scan, findings: [] };
    add(scan, code, rule, message, start, end);
    return scan.findings[0]!;
  }

  /** Instruction and secret findings only (what decides whether a hidden blob is smuggling). */
  wordFindings(): Finding[] {
    const words = [...this.instructions, ...this.secrets].filter((f): f is Finding => f !== undefined);
    return this.secrets.some(Boolean) || !this.secretWord ? words : [...words, this.secretWord];
  }

  finish(): Finding[] {
    const scan = this.scan;
    const { text, noun } = scan;
    const tags = this.tags;
    if (tags.count > 0) {
      const hidden = tags.decoded.join(' ').trim();
      const message = hidden
        ? `${noun} hides ${tags.count} invisible Unicode tag characters that spell ${quote(hidden, 160)}.`
        : `${noun} contains ${tags.count} invisible Unicode tag characters.`;
      add(scan, 'unicode-tags', 'tags', message, tags.start, tags.end, true);
    }
    const say: Record<CharKind, [FindingCode, (t: Tally) => string]> = {
      invisible: ['invisible-characters', (t) => `${noun} contains ${t.count} invisible character(s) (${describeCps(t.cps)}) that can hide or split words.`],
      bidiOverride: ['bidi-control', (t) => `${noun} contains ${t.count} bidirectional control character(s) (${describeCps(t.cps)}) that make text display in a different order than it is read.`],
      bidiMark: ['bidi-control', (t) => `${noun} contains ${t.count} bidirectional mark(s) (${describeCps(t.cps)}) that can change how nearby text is displayed.`],
      ansi: ['control-characters', () => `${noun} contains terminal escape sequences that can restyle or rewrite what a terminal shows.`],
      control: ['control-characters', (t) => `${noun} contains ${t.count} control character(s) (${describeCps(t.cps)}).`],
    };
    for (const [kind, tally] of this.tallies) {
      const [code, message] = say[kind];
      add(scan, code, kind, message(tally), tally.start, tally.end, true);
    }
    scan.findings.push(...this.wordFindings());
    scan.findings.push(...this.cross.filter((f): f is Finding => f !== undefined));
    if (this.urls.count > 0) {
      const hosts = [...this.urls.hosts];
      const shown = hosts.slice(0, 3).map((h) => quote(h, 40)).join(', ') + (hosts.length > 3 ? ', …' : '');
      add(scan, 'embedded-url', 'url', `${noun} contains ${this.urls.count} web address(es) (${shown}).`, this.urls.start, this.urls.end);
    }
    if (this.blob) this.addBlob(this.blob);
    if (scan.where === 'description' && text.length > LONG_DESCRIPTION_CHARS) {
      // Show the tail: the part a person is least likely to have scrolled to.
      const start = boundary(text, text.length - MATCH_CHARS);
      add(scan, 'long-description', 'long', `${noun} is ${text.length} characters long, and instructions can hide in long text.`, start, text.length);
    }
    return scan.findings.sort(bySeverity);
  }

  private addBlob({ start, end }: { start: number; end: number }): void {
    const decoded = decodeBase64(this.scan.text.slice(start, Math.min(end, start + DECODE_CHARS)));
    const what = decoded ? `that decodes to text starting ${quote(decoded, 80)}` : 'that could hide data';
    // Encoded instructions or secret paths are smuggling, not data, wherever the blob sits.
    const hidden = new TextScan(decoded ?? '', 'description', '', [], true);
    for (let at = 0; at < hidden.length; at = windowEnd(decoded ?? '', at)) hidden.step(at, windowEnd(decoded ?? '', at));
    const rule = hidden.wordFindings().some((f) => f.severity === 'danger') ? 'smuggled' : 'base64';
    add(this.scan, 'base64-blob', rule, `${this.scan.noun} contains a ${end - start}-character base64 blob ${what}.`, start, end);
  }
}

const windowEnd = (text: string, from: number) => boundary(text, Math.min(text.length, from + SCAN_WINDOW));

// ---------------------------------------------------------------------------------------------

const RANK: Record<Severity, number> = { danger: 0, warning: 1, info: 2 };
const bySeverity = (a: Finding, b: Finding) => RANK[a.severity] - RANK[b.severity];
const NOUNS: Record<Where, string> = { description: 'The description', name: 'The name', argument: 'The argument' };

function scanWith(text: string, ctx: ScanContext, noun: string): Finding[] {
  const scan = new TextScan(text, ctx.where, noun, ctx.otherServers);
  for (let at = 0; at < text.length; at = windowEnd(text, at)) scan.step(at, windowEnd(text, at));
  return scan.finish();
}

/**
 * scanText that gives the event loop back between windows: `pause` resolves when the caller
 * wants to go on (it decides how often to really yield).
 */
export async function scanTextAsync(text: string, ctx: ScanContext, pause: () => Promise<void> | void): Promise<Finding[]> {
  const scan = new TextScan(text, ctx.where, NOUNS[ctx.where], ctx.otherServers);
  for (let at = 0; at < text.length; at = windowEnd(text, at)) {
    scan.step(at, windowEnd(text, at));
    await pause();
  }
  return scan.finish();
}

/** Findings for one piece of text, most severe first. */
export function scanText(text: string, ctx: ScanContext): Finding[] {
  return scanWith(text, ctx, NOUNS[ctx.where]);
}

const MAX_SCHEMA_DEPTH = 32;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

// Descriptions, titles and property names anywhere in a schema: the model reads them all.
function scanSchema(node: unknown, path: string, ctx: Omit<ScanContext, 'where'>, out: Finding[], depth = 0): void {
  if (!isObject(node) || depth > MAX_SCHEMA_DEPTH) return;
  for (const key of ['description', 'title'] as const) {
    const value = Array.isArray(node) ? undefined : node[key];
    if (typeof value !== 'string') continue;
    const noun = `The schema ${key} at ${revealClip(path, 80)}`;
    out.push(...tagged(scanWith(value, { ...ctx, where: 'description' }, noun), `${path}.${key}`));
  }
  const props = Array.isArray(node) ? undefined : node.properties;
  if (isObject(props) && !Array.isArray(props)) {
    for (const name of Object.keys(props)) {
      // Other servers' tool names are not checked here: "query" or "path" are ordinary parameter names.
      const found = scanWith(name, { otherServers: [], where: 'name' }, `The parameter name ${quote(name)}`);
      out.push(...tagged(found, `${path}.properties`));
    }
  }
  // Strings end the walk, so a parameter that happens to be named "description" is still entered.
  for (const [key, child] of Object.entries(node)) scanSchema(child, `${path}.${key}`, ctx, out, depth + 1);
}

const tagged = (findings: Finding[], field: string) => findings.map((f) => ({ ...f, field }));

/** Scans a tool's name, titles, description and the descriptions inside its schemas. */
export function scanTool(tool: ToolDefinition, ctx: Omit<ScanContext, 'where'>): Finding[] {
  // Naming yourself is not a cross-server reference; a shared name is findShadowing's job.
  const own = tool.name.toLowerCase();
  const others = { otherServers: ctx.otherServers.map((s) => ({ ...s, tools: s.tools.filter((t) => t.toLowerCase() !== own) })) };
  const out: Finding[] = [];
  out.push(...tagged(scanWith(tool.name, { otherServers: [], where: 'name' }, 'The tool name'), 'name'));
  const texts: Array<[string, unknown, Where, string]> = [
    ['title', tool.title, 'name', 'The title'],
    ['annotations.title', isObject(tool.annotations) ? tool.annotations.title : undefined, 'name', 'The annotation title'],
    ['description', tool.description, 'description', 'The description'],
  ];
  for (const [field, value, where, noun] of texts) {
    if (typeof value === 'string') out.push(...tagged(scanWith(value, { ...others, where }, noun), field));
  }
  scanSchema(tool.inputSchema, 'inputSchema', others, out);
  scanSchema(tool.outputSchema, 'outputSchema', others, out);
  return out.sort(bySeverity);
}

export interface Shadowing {
  /** The shared name as the first server spells it (escape before showing). */
  tool: string;
  /** Every server offering it, with its exact spelling. */
  servers: Array<{ server: string; tool: string }>;
  /** True when the spellings differ only by case, compatibility forms or invisible characters. */
  lookalike: boolean;
}

// Folds the differences a model would not notice when picking a tool by name.
const INVISIBLE_ANY = /[\p{Cf}\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;
const fold = (name: string) => name.normalize('NFKC').replace(INVISIBLE_ANY, '').toLowerCase();

/** Tool names offered by more than one server: the model may call the wrong one. */
export function findShadowing(servers: ServerTools[]): Shadowing[] {
  const groups = new Map<string, Array<{ server: string; tool: string }>>();
  for (const { server, tools } of servers) {
    for (const tool of new Set(tools)) {
      const group = groups.get(fold(tool)) ?? [];
      if (!group.some((g) => g.server === server && g.tool === tool)) group.push({ server, tool });
      groups.set(fold(tool), group);
    }
  }
  const shadowed: Shadowing[] = [];
  for (const group of groups.values()) {
    const first = group[0];
    if (!first || new Set(group.map((g) => g.server)).size < 2) continue;
    shadowed.push({ tool: first.tool, servers: group, lookalike: group.some((g) => g.tool !== first.tool) });
  }
  return shadowed;
}
