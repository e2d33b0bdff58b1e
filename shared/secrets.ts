// The one secret detector: values that look like credentials, so a person notices one before it
// leaves the machine. Heuristics: they flag and mask for display, they never block a call. Used by
// the broker (a finding on a call whose arguments carry one), the CLI (`log` masks them unless asked)
// and the UI (a mark on the value).
// Every pattern is linear on hostile input: cheap gates checked with includes() first, a literal start,
// and a left edge that cannot sit inside the token's own characters, so each run is tried once.
import { escapeControl } from './escape.js';

interface SecretShape {
  /** "a GitHub token (ghp_…)": what the value looks like. */
  what: string;
  re: RegExp;
  /**
   * Text every match holds: a window without any of them skips the regex. Short and starting with a
   * rare character ('_', '-', 'yJ'), since finding them is most of the cost in text that holds no secret,
   * and shared between kinds (each is looked for once per window).
   */
  gates: string[];
  /** What of a match may be shown: the kind's public prefix, never any of its secret part. */
  shown: (match: string) => string;
  /** For blocks: where the whole secret ends, from the end of the matched header. */
  blockEnd?: (text: string, match: RegExpExecArray) => number;
}

const head = (n: number) => (m: string) => `${m.slice(0, n)}…`;
// A PEM block ends at its END line; a block without one is masked to the end of the text.
const pemEnd = (text: string, m: RegExpExecArray) => {
  const end = text.indexOf(`-----END ${m[1] ?? ''}`, m.index + m[0].length);
  if (end < 0) return text.length;
  const close = text.indexOf('-----', end + 9);
  return close < 0 ? text.length : close + 5;
};

// Order matters: the first kind that matches names the value (specific prefixes before sk-…).
const SHAPES: SecretShape[] = [
  { what: 'a PEM private key', re: /-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY)-----/g, gates: ['-----BEGIN '], shown: (m) => m, blockEnd: pemEnd },
  { what: 'a PEM block', re: /-----BEGIN ([A-Z0-9 ]{1,40})-----/g, gates: ['-----BEGIN '], shown: (m) => m, blockEnd: pemEnd },
  { what: 'an Anthropic API key (sk-ant-…)', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g, gates: ['-'], shown: head(7) },
  {
    what: 'an OpenAI API key (sk-proj-…)',
    re: /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g,
    gates: ['-'],
    shown: (m) => `${m.slice(0, m.indexOf('-', 3) + 1)}…`,
  },
  { what: 'a Stripe secret key (sk_live_…)', re: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, gates: ['_'], shown: head(8) },
  { what: 'an API key (sk-…)', re: /\bsk-[A-Za-z0-9_-]{16,}/g, gates: ['-'], shown: head(3) },
  { what: 'a GitHub token (ghp_…)', re: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, gates: ['_'], shown: head(4) },
  { what: 'a GitHub token (github_pat_…)', re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, gates: ['_'], shown: head(11) },
  { what: 'a GitLab token (glpat-…)', re: /\bglpat-[A-Za-z0-9_-]{20,}/g, gates: ['-'], shown: head(6) },
  { what: 'an npm token (npm_…)', re: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g, gates: ['_'], shown: head(4) },
  { what: 'a Hugging Face token (hf_…)', re: /\bhf_[A-Za-z0-9]{30,}/g, gates: ['_'], shown: head(3) },
  { what: 'a Slack token (xox…)', re: /\bxox[abeposr]-[A-Za-z0-9-]{10,}/g, gates: ['xox'], shown: head(5) },
  { what: 'an AWS access key', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, gates: ['IA'], shown: head(4) },
  { what: 'a Google API key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, gates: ['Iz'], shown: head(4) },
  { what: 'a SendGrid key (SG.…)', re: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/g, gates: ['G.'], shown: head(3) },
  // A token's segments hold '-': only a run's first "eyJ" is tried (the look-behind), so "-eyJ-eyJ…" stays linear.
  { what: 'a JSON Web Token', re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, gates: ['yJ'], shown: head(3) },
  { what: 'a bearer token', re: /\bBearer[ \t]{1,8}[A-Za-z0-9._~+/-]{16,}=*/g, gates: ['Bearer'], shown: () => 'Bearer …' },
];

/** A property name that suggests its value is a secret. */
const SECRET_KEY =
  /token|secret|passw(?:or)?d|passphrase|\bpwd\b|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|authori[sz]ation|cookie|session[_-]?id/i;

export const isSecretName = (key: string): boolean => SECRET_KEY.test(key);

export interface SecretMatch {
  start: number;
  end: number;
  what: string;
  /** The match with its secret part cut: safe to show ("ghp_…"). */
  shown: string;
}

/** Whether a gate is in the text, each looked for at most once. */
function gatesIn(text: string): (gate: string) => boolean {
  const seen = new Map<string, boolean>();
  return (gate) => {
    let p = seen.get(gate);
    if (p === undefined) seen.set(gate, (p = text.includes(gate)));
    return p;
  };
}

const overlap = (found: SecretMatch[], at: number) => found.find((f) => at >= f.start && at < f.end);

/** Most UTF-16 units of a match the windowed search still sees whole when it starts near a window's end. */
export const SECRET_OVERLAP = 4096;

/**
 * The first match of each kind of secret that starts in [from, to) of `text`, a value named once by its
 * most specific kind. For long texts searched window by window: a match is seen whole up to SECRET_OVERLAP.
 */
export function secretShapes(text: string, from = 0, to = text.length): SecretMatch[] {
  const start = Math.max(0, from - 1); // one character before: the left edges look at it
  const slice = start === 0 && to >= text.length ? text : text.slice(start, Math.min(text.length, to + SECRET_OVERLAP));
  const out: SecretMatch[] = [];
  const present = gatesIn(slice);
  for (const shape of SHAPES) {
    if (!shape.gates.some(present)) continue;
    shape.re.lastIndex = from - start;
    let m = shape.re.exec(slice);
    // A value a more specific kind already named (sk-ant-… is also sk-…) is not found twice.
    for (let over = m && overlap(out, start + m.index); m && over; over = m && overlap(out, start + m.index)) {
      shape.re.lastIndex = over.end - start;
      m = shape.re.exec(slice);
    }
    if (m && start + m.index < to) out.push({ start: start + m.index, end: start + m.index + m[0].length, what: shape.what, shown: shape.shown(m[0]) });
  }
  return out;
}

/** The kind of secret the text holds (the first kind that matches), or undefined. */
export function secretKind(text: string): string | undefined {
  return secretShapes(text)[0]?.what; // in SHAPES order
}

/** Why this value looks secret, or undefined. `key` is the property name holding it, if any. */
export function secretReason(value: unknown, key?: string): string | undefined {
  if (typeof value === 'string') {
    const what = secretKind(value);
    if (what) return `looks like ${what}`;
    if (key && isSecretName(key) && value.trim() !== '') return `the name "${escapeControl(key)}" suggests a secret`;
  } else if (key && isSecretName(key) && (typeof value === 'number' || typeof value === 'bigint')) {
    return `the name "${escapeControl(key)}" suggests a secret`;
  }
  return undefined;
}

export interface SecretHit {
  path: string;
  why: string;
}

/** Every flagged leaf in a JSON value, with a readable path. */
export function findSecrets(value: unknown, path = '', key?: string, out: SecretHit[] = []): SecretHit[] {
  if (Array.isArray(value)) value.forEach((v, i) => findSecrets(v, `${path}[${i}]`, key, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) findSecrets(v, path ? `${path}.${k}` : k, k, out);
  } else {
    const why = secretReason(value, key);
    if (why) out.push({ path: path || '(value)', why });
  }
  return out;
}

const masked = (what: string) => `[masked: ${what}]`;

/** The text with every secret-shaped run replaced by `[masked: <what>]`; the rest is kept as it is. */
export function maskText(text: string): string {
  const spans: Array<{ start: number; end: number; what: string }> = [];
  const present = gatesIn(text);
  for (const shape of SHAPES) {
    if (!shape.gates.some(present)) continue;
    shape.re.lastIndex = 0;
    for (let m = shape.re.exec(text); m; m = shape.re.exec(text)) {
      const end = shape.blockEnd ? shape.blockEnd(text, m) : m.index + m[0].length;
      spans.push({ start: m.index, end, what: shape.what });
      shape.re.lastIndex = end;
    }
  }
  if (!spans.length) return text;
  // Earlier first; of two at one place the earlier kind in SHAPES (sort is stable). Overlaps merge.
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.end <= at) continue;
    if (s.start < at) {
      at = s.end;
      continue;
    }
    out += `${text.slice(at, s.start)}${masked(s.what)}`;
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * A copy of a JSON value for display, with secrets masked: secret-shaped runs in any string, and the
 * whole of a non-empty string held under a name that suggests a secret ("password", "apiKey"…).
 * Numbers are kept, so a value's type never changes ("max_tokens": 1024 stays a number).
 */
export function maskSecrets(value: unknown, key?: string): unknown {
  if (typeof value === 'string') {
    if (key && isSecretName(key) && value.trim() !== '') return masked(`the name "${escapeControl(key)}" suggests a secret`);
    return maskText(value);
  }
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v, k)]));
  }
  return value;
}
