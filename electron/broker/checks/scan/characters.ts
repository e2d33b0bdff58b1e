// Hidden characters in one text: invisible ones, bidi controls, terminal escapes and other controls,
// Unicode tags ("ASCII smuggling") and runs of variation selectors ("emoji smuggling"). Which characters
// are invisible is the one set in shared/text/invisible.ts; this part decides which of them are worth a
// warning, and lets their everyday uses pass: joiners inside emoji and joining scripts, CRLF, a file's
// BOM, Mongolian selectors after Mongolian letters, and a lone variation selector.
import type { FindingCode } from '../../../../shared/findings.js';
import { INVISIBLE_CLASS, isInvisible } from '../../../../shared/text/invisible.js';
import { add, type Scan, type Where } from './context.js';
import { boundary, quote } from './finding-text.js';
import { decodeSelectors, decodeTags, isFlag } from './smuggling.js';

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
const hex = (cp: number) => cp.toString(16).toUpperCase().padStart(4, '0');
const describeCps = (cps: Set<number>) =>
  [...cps]
    .slice(0, 3)
    .map((cp) => `U+${hex(cp)}${NAMES[cp] ? ` ${NAMES[cp]}` : ''}`)
    .join(', ') + (cps.size > 3 ? ', …' : '');

const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
// The selectors that can each carry a byte (SELECTORS below); Mongolian ones (U+180B…) are looked at as
// invisible characters.
const isVariationSelector = (cp: number) => (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
const isMongolianSelector = (cp: number) => (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f;
const PICTOGRAPHIC = /^[\p{Extended_Pictographic}\u{1f3fb}-\u{1f3ff}\ufe0f]$/u;
// Scripts whose spelling uses joiners (Arabic, Syriac, N'Ko, Mongolian, Brahmic), not e.g. Cyrillic lookalikes.
const JOINING_SCRIPTS = [
  'Arabic',
  'Syriac',
  'Nko',
  'Mongolian',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
];
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

const CONTROL = /^[\p{Cc}\p{Zl}\p{Zp}]$/u;
const BIDI_CONTROL = /^\p{Bidi_Control}$/u;
const BIDI_MARKS = new Set([0x061c, 0x200e, 0x200f]);
// Remembered per code point, as classOf: a run of hidden characters asks about each of them.
const kinds = new Map<number, CharKind | null>();

// Tags and the byte-carrying selectors have their own rules (tag runs, selector runs).
function charKind(cp: number): CharKind | undefined {
  if (cp === 0x1b || cp === 0x9b) return 'ansi';
  let kind = kinds.get(cp);
  if (kind === undefined) {
    const ch = String.fromCodePoint(cp);
    if (CONTROL.test(ch)) kind = 'control';
    else if (BIDI_CONTROL.test(ch)) kind = BIDI_MARKS.has(cp) ? 'bidiMark' : 'bidiOverride';
    else kind = isInvisible(cp) && !isTag(cp) && !isVariationSelector(cp) ? 'invisible' : null;
    if (kinds.size < 65_536) kinds.set(cp, kind);
  }
  return kind ?? undefined;
}

// Characters with everyday legitimate uses, skipped so real text does not raise alarms.
function legitimate(text: string, i: number, cp: number, where: Where): boolean {
  if (cp === 0x09 || cp === 0x0a) return true;
  if (cp === 0x0d) return text.charCodeAt(i + 1) === 0x0a; // CRLF, not a bare CR that overwrites a line
  if (cp === 0xfeff && i === 0 && where === 'argument') return true; // a file's byte-order mark
  if (cp === 0x200c || cp === 0x200d || isMongolianSelector(cp)) {
    const prev = classOf(text.codePointAt(boundary(text, i - 1)) ?? 0);
    // Mongolian letters take a free variation selector after them.
    if (isMongolianSelector(cp)) return (prev & JOINING) !== 0;
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

interface Tally {
  start: number;
  end: number;
  count: number;
  cps: Set<number>;
}

const SELECTORS = '\\ufe00-\\ufe0f\\u{e0100}-\\u{e01ef}';
// Selectors are found by a search of their own, in runs only: one alone is everyday emoji style.
const SELECTOR_RUN = new RegExp(`[${SELECTORS}]{2}`, 'gu');

// The characters the search looks at: the invisible set but \t, \n and the byte-carrying selectors. In
// text of Latin letters only, one native search with that class (set subtraction, the `v` flag) is the
// fastest; beyond Latin its many ranges defeat the engine's skip tables, and a plain loop over a table
// per UTF-16 unit is twice as fast. Both come from the set's own regex, so it stays the one definition.
const CANDIDATE = new RegExp(`[[${INVISIBLE_CLASS}]--[\\t\\n${SELECTORS}]]`, 'gv');
const BEYOND_LATIN = /[\u0370-\uffff]/;

// Per UTF-16 unit: 0 skip, 1 look, 2 a surrogate, whose code point decides.
let units: Uint8Array | undefined;
function unitTable(): Uint8Array {
  if (!units) {
    units = new Uint8Array(0x10000);
    const member = new RegExp(`[${INVISIBLE_CLASS}]`, 'u');
    for (let c = 0; c < 0x10000; c++) if (member.test(String.fromCharCode(c))) units[c] = 1;
    units.fill(2, 0xd800, 0xe000);
    units.fill(0, 0xfe00, 0xfe10);
    units[0x09] = units[0x0a] = 0;
  }
  return units;
}
// Astral code points the search looks at: the set's, but the byte-carrying selectors. Remembered.
const astral = new Map<number, boolean>();
function looksAtAstral(cp: number): boolean {
  let look = astral.get(cp);
  if (look === undefined) {
    look = isInvisible(cp) && !isVariationSelector(cp);
    if (astral.size < 65_536) astral.set(cp, look);
  }
  return look;
}

const MAX_DECODED_TAGS = 1000;
const MAX_SELECTOR_FINDINGS = 3;

/** The hidden-character part of one text's scan, fed window by window. */
export class CharacterScan {
  private pos = 0;
  private readonly tallies = new Map<CharKind, Tally>();
  private readonly tags = { start: -1, end: -1, count: 0, decoded: [] as string[], decodedLength: 0 };
  private selectorFindings = 0;
  private selectorPos = 0;

  constructor(private readonly scan: Scan) {}

  /** [from, to) holds nothing this part looks at (it is all base64). */
  skip(to: number): void {
    this.pos = Math.max(this.pos, to);
    this.selectorPos = Math.max(this.selectorPos, to);
  }

  /** Scans [from, to); windows come in order. Selector runs are added to the findings at once. */
  step(from: number, to: number): void {
    this.pos = this.characters(from, to);
    this.selectorPos = this.selectorRuns(from, to);
  }

  /** Looks at each candidate character in [from, to), from where the last window left off; returns where it stopped. */
  private characters(from: number, to: number): number {
    const { text } = this.scan;
    const start = Math.max(from, this.pos);
    if (start >= to) return start;
    const slice = text.slice(start, to);
    if (!BEYOND_LATIN.test(slice)) {
      CANDIDATE.lastIndex = 0;
      for (let m = CANDIDATE.exec(slice); m; m = CANDIDATE.exec(slice)) {
        const next = this.character(start + m.index);
        if (next >= to) return next;
        CANDIDATE.lastIndex = next - start;
      }
      return to;
    }
    const table = unitTable();
    for (let i = start; i < to; i++) {
      const look = table[text.charCodeAt(i)];
      if (!look) continue;
      if (look === 2) {
        const cp = text.codePointAt(i)!;
        // A pair's code point decides; a lone surrogate is in the set.
        if (cp > 0xffff && !looksAtAstral(cp)) {
          i++;
          continue;
        }
      }
      const next = this.character(i);
      if (next >= to) return next;
      i = next - 1;
    }
    return to;
  }

  private selectorRuns(from: number, to: number): number {
    if (this.selectorPos >= to) return this.selectorPos;
    const start = Math.max(from, this.selectorPos);
    const slice = this.scan.text.slice(start, to);
    SELECTOR_RUN.lastIndex = 0;
    for (let m = SELECTOR_RUN.exec(slice); m; m = SELECTOR_RUN.exec(slice)) {
      const next = this.selectors(start + m.index);
      if (next >= to) return next;
      SELECTOR_RUN.lastIndex = next - start;
    }
    return to;
  }

  /** A run of two or more variation selectors at i ("emoji smuggling"); returns where it ends. */
  private selectors(i: number): number {
    const scan = this.scan;
    const run = runAt(scan.text, i, isVariationSelector);
    if (this.selectorFindings++ < MAX_SELECTOR_FINDINGS) {
      const hidden = decodeSelectors(run.cps);
      const what = hidden ? `that decode to the hidden text ${quote(hidden, 120)}` : 'that can carry hidden data';
      add(scan, 'invisible-characters', 'smuggled', `${scan.noun} contains ${run.cps.length} variation selectors in a row ${what}.`, i, run.end, true);
    }
    return run.end;
  }

  /** Looks at the code point at i (one the candidate search stopped at); returns where to go on. */
  private character(i: number): number {
    const scan = this.scan;
    const { text } = scan;
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

  /** Adds the tag finding, then one finding per kind of hidden character, in the order first seen. */
  finish(): void {
    const scan = this.scan;
    const { noun } = scan;
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
      bidiOverride: [
        'bidi-control',
        (t) =>
          `${noun} contains ${t.count} bidirectional control character(s) (${describeCps(t.cps)}) that make text display in a different order than it is read.`,
      ],
      bidiMark: [
        'bidi-control',
        (t) => `${noun} contains ${t.count} bidirectional mark(s) (${describeCps(t.cps)}) that can change how nearby text is displayed.`,
      ],
      ansi: ['control-characters', () => `${noun} contains terminal escape sequences that can restyle or rewrite what a terminal shows.`],
      control: ['control-characters', (t) => `${noun} contains ${t.count} control character(s) (${describeCps(t.cps)}).`],
    };
    for (const [kind, tally] of this.tallies) {
      const [code, message] = say[kind];
      add(scan, code, kind, message(tally), tally.start, tally.end, true);
    }
  }
}
