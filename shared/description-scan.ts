// Looks for known tool-poisoning tricks in text a server (or the model) wrote: hidden
// characters, instructions aimed at the model, references to secrets or other servers' tools.
// Heuristics only WARN, they never decide: a person reads the finding and judges.
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
  | 'protected-path';

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

// Escapes and clips to about `max` visible characters, from the start or the end.
function revealClip(text: string, max: number, fromEnd = false): string {
  const cps = Array.from(text);
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
  const mid = revealClip(exact ? text.slice(start, end) : squash(text.slice(start, end)), MATCH_CHARS);
  const post = revealClip(squash(text.slice(end, to)), CONTEXT_CHARS);
  const lead = from > 0 && !pre.startsWith('…') ? '…' : '';
  const tail = to < text.length && !post.endsWith('…') ? '…' : '';
  return `${lead}${pre}${mid}${post}${tail}`;
}

/** Server text quoted inside a message: escaped and short. */
const quote = (s: string, max = 60) => `"${revealClip(squash(s), max)}"`;

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
    const prev = String.fromCodePoint(text.codePointAt(boundary(text, i - 1)) ?? 0);
    const next = String.fromCodePoint(text.codePointAt(i + 1) ?? 0);
    // Emoji sequences (family, rainbow flag) and joining scripts such as Persian or Devanagari need them.
    if (cp === 0x200d && PICTOGRAPHIC.test(prev) && PICTOGRAPHIC.test(next)) return true;
    if (JOINING_SCRIPT.test(prev) && JOINING_SCRIPT.test(next)) return true;
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

function scanCharacters(scan: Scan): void {
  const { text, noun } = scan;
  const tallies = new Map<CharKind, Tally>();
  const tags: { start: number; end: number; count: number; decoded: string[] } = { start: -1, end: -1, count: 0, decoded: [] };
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) ?? 0;
    if (isTag(cp)) {
      const run = runAt(text, i, isTag);
      if (!isFlag(text, i, run.cps)) {
        if (tags.start < 0) Object.assign(tags, { start: i, end: run.end });
        tags.count += run.cps.length;
        tags.decoded.push(decodeTags(run.cps));
      }
      i = run.end;
      continue;
    }
    if (isVariationSelector(cp)) {
      const run = runAt(text, i, isVariationSelector);
      if (run.cps.length >= 2) {
        const hidden = decodeSelectors(run.cps);
        const what = hidden ? `that decode to the hidden text ${quote(hidden, 120)}` : 'that can carry hidden data';
        add(scan, 'invisible-characters', 'smuggled', `${noun} contains ${run.cps.length} variation selectors in a row ${what}.`, i, run.end, true);
      }
      i = run.end;
      continue;
    }
    const kind = charKind(cp);
    const width = cp > 0xffff ? 2 : 1;
    if (kind && !legitimate(text, i, cp, scan.where)) {
      const tally = tallies.get(kind);
      if (tally) {
        tally.count++;
        tally.cps.add(cp);
      } else {
        const run = runAt(text, i, (c) => charKind(c) === kind);
        tallies.set(kind, { start: i, end: run.end, count: 1, cps: new Set([cp]) });
      }
    }
    i += width;
  }

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
  for (const [kind, tally] of tallies) {
    const [code, message] = say[kind];
    add(scan, code, kind, message(tally), tally.start, tally.end, true);
  }
}

// ---------------------------------------------------------------------------------------------
// Words

interface Pattern {
  rule: Rule;
  re: RegExp;
  message: (noun: string, match: string) => string;
}

// Bounded gaps ({0,80}) keep every pattern linear on hostile input.
const INSTRUCTIONS: Pattern[] = [
  {
    rule: 'injection',
    re: /<\s*\/?\s*(?:important|system|system[_ -]?(?:prompt|message|instructions?)|critical|admin|hidden|assistant|(?:ai|user)[_ -]?instructions?|note[_ -]?to[_ -]?(?:ai|assistant|model|llm))\s*(?:\s[^<>]{0,40})?>|<\s*\/\s*(?:instructions?|secret|context|rules)\s*>/i,
    message: (noun, m) => `${noun} contains the tag ${quote(m)}, a known way to slip instructions to the model.`,
  },
  {
    rule: 'injection',
    re: /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i,
    message: (noun, m) => `${noun} contains chat-template markup (${quote(m)}) that can impersonate the system prompt.`,
  },
  {
    rule: 'injection',
    re: /\b(?:do\s+not|don['’]t|never|must\s+not|should\s+not)\s+(?:\w+\s+){0,3}?(?:tell|mention|inform|notify|reveal|show|alert|disclose|let)\w*\b[^.!?]{0,80}?\busers?\b|\b(?:do\s+not|don['’]t|never)\s+mention\b|\bwithout\s+(?:telling|informing|notifying|alerting|asking|letting)\s+(?:the\s+)?users?\b|\bthe\s+user\s+(?:must|should|need)\s*(?:not|n['’]t)\s+(?:know|see|be\s+told)\b/i,
    message: (noun, m) => `${noun} asks the model to keep something from you (${quote(m)}).`,
  },
  {
    rule: 'injection',
    re: /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|other|system|original)\s+(?:instructions?|prompts?|rules|directions|guidelines|messages)\b/i,
    message: (noun) => `${noun} tells the model to ignore its earlier instructions.`,
  },
  {
    rule: 'directive',
    re: /\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|the|any)\s+(?:tool|function)\b[^.!?]{0,80}?\b(?:read|open|fetch|cat|load|send|include|pass|upload)\b/i,
    message: (noun, m) => `${noun} tells the model to do something before using the tool (${quote(m)}).`,
  },
  {
    rule: 'directive',
    re: /\byou\s+(?:must|need\s+to|have\s+to)\b[^.!?]{0,80}?\bfirst\b|\byou\s+first\s+(?:must|need\s+to|have\s+to)\b|\b(?:always|must)\s+(?:call|use|run)\s+this\s+tool\s+(?:first|before)\b/i,
    message: (noun, m) => `${noun} tells the model it must do something first (${quote(m)}).`,
  },
];

const SECRETS: Pattern[] = [
  {
    rule: 'secretFile',
    re: /(?<![\w.-])\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b/i,
    message: (noun, m) => `${noun} refers to SSH keys (${quote(m)}).`,
  },
  {
    rule: 'secretFile',
    re: /\.aws[\\/](?:credentials|config)\b|\baws_secret_access_key\b/i,
    message: (noun, m) => `${noun} refers to AWS credentials (${quote(m)}).`,
  },
  {
    rule: 'secretFile',
    re: /\bmcp(?:_config)?\.json\b|\bclaude_desktop_config\.json\b|\.claude\.json\b|(?<![\w.-])\.cursor\b|\.codeium[\\/]windsurf\b/i,
    message: (noun, m) => `${noun} refers to AI client configuration (${quote(m)}), which holds other servers' credentials.`,
  },
  {
    rule: 'secretFile',
    re: /(?<![\w.-])\.(?:netrc|git-credentials|pgpass|npmrc|pypirc|gnupg)\b|\.docker[\\/]config\.json\b|\.kube[\\/]config\b/i,
    message: (noun, m) => `${noun} refers to a credentials file (${quote(m)}).`,
  },
  {
    rule: 'secretPhrase',
    re: /(?<![\w.$-])\.env(?:\.[\w-]+)?\b/i,
    message: (noun, m) => `${noun} refers to an environment file (${quote(m)}), which often holds secrets.`,
  },
  {
    rule: 'secretPhrase',
    re: /\b(?:api[\s_-]?keys?|apikey|passwords?|passwd|passphrase|private[\s_-]?keys?|secret[\s_-]?keys?|client[\s_-]?secrets?|(?:access|auth|bearer|refresh|session|oauth|github|api)[\s_-]?tokens?|seed\s+phrase)\b/i,
    message: (noun, m) => `${noun} mentions credentials (${quote(m)}).`,
  },
];
// Bare words: "tokens" in pagination or LLM prose is normal, so these stay informational.
const SECRET_WORDS: Pattern = {
  rule: 'secretWord',
  re: /\b(?:tokens?|secrets?|credentials?)\b/i,
  message: (noun, m) => `${noun} uses the word ${quote(m)}, which can refer to credentials.`,
};

function scanPatterns(scan: Scan, code: FindingCode, patterns: Pattern[]): number {
  let hits = 0;
  for (const { rule, re, message } of patterns) {
    const m = re.exec(scan.text);
    if (!m) continue;
    hits++;
    add(scan, code, rule, message(scan.noun, m[0]), m.index, m.index + m[0].length);
  }
  return hits;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Names like send_email or getUser are distinctive; plain words like "search" appear in prose.
const distinctive = (name: string) => /[_.\-\d]/.test(name) || /[a-z][A-Z]/.test(name);

function scanCrossServer(scan: Scan, servers: ServerTools[]): void {
  for (const { server, tools } of servers) {
    for (const tool of tools) {
      if (tool.trim().length < 2) continue;
      const m = new RegExp(`(?<![\\w-])${escapeRegExp(tool)}(?![\\w-])`, 'i').exec(scan.text);
      if (!m) continue;
      const rule = distinctive(tool) ? 'crossDistinct' : 'crossGeneric';
      add(scan, 'cross-server-reference', rule, `${scan.noun} mentions ${quote(tool)}, a tool of the server ${quote(server)}.`, m.index, m.index + m[0].length);
    }
  }
}

const URL_RE = /\b(?:https?|ftp|file|wss?):\/\/[^\s<>"'`)\]}]+/gi;

function scanUrls(scan: Scan): void {
  const matches = [...scan.text.matchAll(URL_RE)];
  const first = matches[0];
  if (!first) return;
  // The host is what follows the last @ of the authority: "https://docs.example@evil.example/".
  const host = (url: string) => (url.split('/')[2] ?? '').split(/[?#]/)[0]?.split('@').pop() ?? '';
  const hosts = [...new Set(matches.map((m) => host(m[0])))];
  const shown = hosts.slice(0, 3).map((h) => quote(h, 40)).join(', ') + (hosts.length > 3 ? ', …' : '');
  add(scan, 'embedded-url', 'url', `${scan.noun} contains ${matches.length} web address(es) (${shown}).`, first.index, first.index + first[0].length);
}

const BASE64 = /[A-Za-z0-9+/_-]{80,}={0,2}/g;

function decodeBase64(blob: string): string | undefined {
  try {
    const std = blob.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    const bytes = Uint8Array.from(atob(std.slice(0, std.length - (std.length % 4))), (c) => c.charCodeAt(0));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return /^[\x20-\x7e\n\t\r]+$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

function scanBase64(scan: Scan): void {
  // Real base64 mixes cases and digits; long snake_case words or hex digests do not.
  const blob = [...scan.text.matchAll(BASE64)].find((m) => /[A-Z]/.test(m[0]) && /[a-z]/.test(m[0]) && /\d/.test(m[0]));
  if (!blob) return;
  const text = decodeBase64(blob[0]);
  const what = text ? `that decodes to text starting ${quote(text, 80)}` : 'that could hide data';
  // Encoded instructions or secret paths are smuggling, not data, wherever the blob sits.
  const hidden: Scan = { text: text ?? '', where: 'description', noun: '', findings: [] };
  scanPatterns(hidden, 'model-instructions', INSTRUCTIONS);
  scanPatterns(hidden, 'secret-reference', SECRETS);
  const rule = hidden.findings.some((f) => f.severity === 'danger') ? 'smuggled' : 'base64';
  add(scan, 'base64-blob', rule, `${scan.noun} contains a ${blob[0].length}-character base64 blob ${what}.`, blob.index, blob.index + blob[0].length);
}

// ---------------------------------------------------------------------------------------------

const RANK: Record<Severity, number> = { danger: 0, warning: 1, info: 2 };
const bySeverity = (a: Finding, b: Finding) => RANK[a.severity] - RANK[b.severity];
const NOUNS: Record<Where, string> = { description: 'The description', name: 'The name', argument: 'The argument' };

function scanWith(text: string, ctx: ScanContext, noun: string): Finding[] {
  const scan: Scan = { text, where: ctx.where, noun, findings: [] };
  scanCharacters(scan);
  scanPatterns(scan, 'model-instructions', INSTRUCTIONS);
  if (scanPatterns(scan, 'secret-reference', SECRETS) === 0) scanPatterns(scan, 'secret-reference', [SECRET_WORDS]);
  scanCrossServer(scan, ctx.otherServers);
  scanUrls(scan);
  scanBase64(scan);
  if (ctx.where === 'description' && text.length > LONG_DESCRIPTION_CHARS) {
    // Show the tail: the part a person is least likely to have scrolled to.
    const start = boundary(text, text.length - MATCH_CHARS);
    add(scan, 'long-description', 'long', `${noun} is ${text.length} characters long, and instructions can hide in long text.`, start, text.length);
  }
  return scan.findings.sort(bySeverity);
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
