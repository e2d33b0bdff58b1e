// The prefilter of the text scan's word rules (word-rules.ts, and other servers' tool names): which rules
// could match in a slice of text, found with one native search per rule that turns up, so a rule's full
// regex runs only where it can match.
// It may say yes too often (then the full regex finds nothing), never too rarely.

export interface AnchorRule {
  /**
   * Text every match of the rule holds one of (case-insensitive ASCII, as the rules' `i` regexes).
   * One that starts with a letter, digit or _ starts at a word boundary (\b) in every match.
   */
  anchors: string[];
  /** A one-character class every match holds (e.g. /\s/); text without one skips the rule. */
  needs?: RegExp;
}

interface Anchor {
  source: string;
  word: boolean;
  /** ASCII characters other than letters and digits it holds: text without one of them cannot hold it. */
  gates: string[];
}

interface Compiled {
  re: RegExp;
  /** Rule index of each capture group, in order. */
  rules: number[];
}

/** `s` as a regex source that matches it literally. */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const WORD_START = /^[A-Za-z0-9_]/;
// Base64 (both alphabets), where the only word boundaries are at + / = - and a small class finds them
// much faster than \b does at every letter.
const NOT_BASE64 = /[^A-Za-z0-9+/=_-]/;
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-';
const BASE64_BOUNDARY = '[+/=-]';

/** True when the text holds only base64 characters (either alphabet, and =): no spaces, dots, controls. */
export const onlyBase64 = (text: string) => !NOT_BASE64.test(text);
const MAX_COMPILED = 256;

function anchorOf(text: string): Anchor {
  const gates = new Set<string>();
  for (const ch of text) if (ch < '\u0080' && !/[A-Za-z0-9]/.test(ch)) gates.add(ch);
  return { source: escapeRegExp(text), word: WORD_START.test(text), gates: [...gates] };
}

export class AnchorSearch {
  private readonly anchors: Anchor[][];
  /** Per rule: whether base64 text can pass its `needs` (it cannot hold whitespace or a dot). */
  private readonly base64Needs: boolean[];
  private readonly compiled = new Map<string, Compiled>();

  constructor(private readonly rules: AnchorRule[]) {
    this.anchors = rules.map((r) => r.anchors.map(anchorOf));
    this.base64Needs = rules.map((r) => !r.needs || r.needs.test(BASE64_ALPHABET));
  }

  /**
   * Which of the `wanted` rules (indexes into the rules) have an anchor in `slice`. `atStart`: the
   * slice starts the text, so its first character has a word boundary before it. `base64`: what
   * onlyBase64(slice) says.
   */
  hits(slice: string, atStart: boolean, wanted: number[], base64 = onlyBase64(slice)): Set<number> {
    const hit = new Set<number>();
    const present = new Map<string, boolean>();
    const has = (ch: string) => {
      let p = present.get(ch);
      if (p === undefined) present.set(ch, (p = slice.includes(ch)));
      return p;
    };
    const passed = new Map<RegExp, boolean>();
    const passes = (re: RegExp) => {
      let p = passed.get(re);
      if (p === undefined) passed.set(re, (p = re.test(slice)));
      return p;
    };
    // Rules with the anchors this slice can hold, given the punctuation it has.
    let live: Array<[number, number[]]> = [];
    for (const r of wanted) {
      const needs = this.rules[r]!.needs;
      const possible = this.anchors[r]!.flatMap((a, k) => (a.gates.every(has) ? [k] : []));
      const needed = !needs || (base64 ? this.base64Needs[r] && passes(needs) : passes(needs));
      if (possible.length && needed) live.push([r, possible]);
    }
    // Each hit drops its rule and the search goes on from the hit (others may start there or inside
    // it), so dense text costs one hit per rule, not one per occurrence.
    const text = base64 && atStart ? `+${slice}` : slice;
    let pos = 0;
    while (live.length) {
      const { re, rules } = this.compile(live, base64);
      re.lastIndex = pos;
      const m = re.exec(text);
      if (!m) break;
      let group = 1;
      while (m[group] === undefined) group++;
      const rule = rules[group - 1]!;
      hit.add(rule);
      live = live.filter(([r]) => r !== rule);
      pos = m.index;
    }
    return hit;
  }

  // One regex for the given rules and anchors: word anchors behind one boundary, each rule a group.
  private compile(live: Array<[number, number[]]>, base64: boolean): Compiled {
    const key = `${base64 ? 'b' : 't'}${live.map(([r, ks]) => `${r}:${ks.join(',')}`).join(';')}`;
    let c = this.compiled.get(key);
    if (c) return c;
    const words: string[] = [];
    const others: string[] = [];
    const wordRules: number[] = [];
    const otherRules: number[] = [];
    for (const [r, ks] of live) {
      const anchors = ks.map((k) => this.anchors[r]![k]!);
      const w = anchors.filter((a) => a.word).map((a) => a.source);
      const o = anchors.filter((a) => !a.word).map((a) => a.source);
      if (w.length) (words.push(`(${w.join('|')})`), wordRules.push(r));
      if (o.length) (others.push(`(${o.join('|')})`), otherRules.push(r));
    }
    const boundary = base64 ? BASE64_BOUNDARY : '\\b';
    const parts = [...(words.length ? [`${boundary}(?:${words.join('|')})`] : []), ...others];
    if (this.compiled.size >= MAX_COMPILED) this.compiled.clear();
    c = { re: new RegExp(parts.join('|'), 'gi'), rules: [...wordRules, ...otherRules] };
    this.compiled.set(key, c);
    return c;
  }
}
