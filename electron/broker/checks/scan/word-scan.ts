// The word part of one text's scan: the word rules (word-rules.ts) and other servers' tool names, each
// found at most once per text. The prefilter says which rules' anchors a slice holds; only their full
// regexes run.
import type { Finding, FindingCode } from '../../../../shared/findings.js';
import { AnchorSearch, escapeRegExp, type AnchorRule } from './anchor-search.js';
import { findingAt, type Rule, type Scan, type ServerTools } from './context.js';
import { quote } from './finding-text.js';
import { INSTRUCTIONS, SECRETS, SECRET_WORDS, WORD_RULES } from './word-rules.js';

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
    const cross = servers.flatMap(({ server, tools }) =>
      tools
        .filter((tool) => tool.trim().length >= 2 && tool.length <= 512)
        .map((tool) => ({ server, tool, anchors: [tool], re: new RegExp(`(?<![\\w-])${escapeRegExp(tool)}(?![\\w-])`, 'gi') })),
    );
    rules = { cross, search: new AnchorSearch([...WORD_RULES, ...cross]) };
    rulesCache.set(servers, rules);
  }
  return rules;
}
const NO_SERVERS = rulesFor([]);

const globalCopies = new WeakMap<RegExp, RegExp>();
const globalOf = (re: RegExp) => {
  let g = globalCopies.get(re);
  if (!g) globalCopies.set(re, (g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`)));
  return g;
};

/** `wordsOnly`: just the instruction and secret rules, not other servers' tools. */
export class WordScan {
  private readonly instructions: Array<Finding | undefined> = [];
  private readonly secrets: Array<Finding | undefined> = [];
  private secretWord: Finding | undefined;
  private readonly cross: Array<Finding | undefined> = [];
  private readonly rules: Rules;

  constructor(
    private readonly scan: Scan,
    servers: ServerTools[],
    private readonly wordsOnly = false,
  ) {
    this.rules = servers.length ? rulesFor(servers) : NO_SERVERS;
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

  /** Matches that start in [from, to); `slice` is the text from sliceStart, reaching past `to`. */
  step(slice: string, sliceStart: number, from: number, to: number, base64: boolean): void {
    const { noun } = this.scan;
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
      this.cross[r - CROSS_AT] = this.finding(
        'cross-server-reference',
        rule,
        `${noun} mentions ${quote(tool)}, a tool of the server ${quote(server)}.`,
        m.index,
        m.index + m.text.length,
      );
    }
  }

  private finding(code: FindingCode, rule: Rule, message: string, start: number, end: number): Finding {
    return findingAt(this.scan, code, rule, message, start, end);
  }

  /** Instruction and secret findings only (what decides whether a hidden blob is smuggling). */
  wordFindings(): Finding[] {
    const words = [...this.instructions, ...this.secrets].filter((f): f is Finding => f !== undefined);
    return this.secrets.some(Boolean) || !this.secretWord ? words : [...words, this.secretWord];
  }

  /** Mentions of other servers' tools. */
  crossFindings(): Finding[] {
    return this.cross.filter((f): f is Finding => f !== undefined);
  }
}
