// One text, scanned window by window in linear time: each part (characters, words, URLs, base64)
// remembers where it stopped, so runs and matches that cross a window edge are seen once, and an async
// caller can yield between windows.
import type { Finding } from '../../../../shared/findings.js';
import { worstFirst } from '../../../../shared/decision.js';
import { onlyBase64 } from './anchor-search.js';
import { CharacterScan } from './characters.js';
import { add, type Scan, type ServerTools, type Where } from './context.js';
import { Base64Scan, UrlScan } from './embedded.js';
import { boundary, MATCH_CHARS } from './finding-text.js';
import { WordScan } from './word-scan.js';

/** Texts are scanned in windows of this many UTF-16 units; an async caller yields between them. */
export const SCAN_WINDOW = 64 * 1024;
// Every word pattern is bounded (gaps of at most 80), so a match that starts in a window ends in its overlap.
const OVERLAP = 1024;
const LOOKBEHIND = 16;
export const LONG_DESCRIPTION_CHARS = 2000;

/** Where the window that starts at `from` ends. */
export const windowEnd = (text: string, from: number) => boundary(text, Math.min(text.length, from + SCAN_WINDOW));

// Encoded instructions or secret paths make a blob smuggling: the decoded text's word rules decide.
function smuggles(decoded: string): boolean {
  const words = new WordScan({ text: decoded, where: 'description', noun: '', findings: [] }, [], true);
  for (let at = 0; at < decoded.length; at = windowEnd(decoded, at)) {
    const to = windowEnd(decoded, at);
    const sliceStart = Math.max(0, at - LOOKBEHIND);
    const slice = decoded.slice(sliceStart, Math.min(decoded.length, to + OVERLAP));
    words.step(slice, sliceStart, at, to, onlyBase64(slice));
  }
  return words.wordFindings().some((f) => f.severity === 'danger');
}

export class TextScan {
  private readonly scan: Scan;
  private readonly characters: CharacterScan;
  private readonly words: WordScan;
  private readonly urls: UrlScan;
  private readonly base64: Base64Scan;

  constructor(text: string, where: Where, noun: string, servers: ServerTools[]) {
    this.scan = { text, where, noun, findings: [] };
    this.characters = new CharacterScan(this.scan);
    this.words = new WordScan(this.scan, servers);
    this.urls = new UrlScan(this.scan);
    this.base64 = new Base64Scan(this.scan, smuggles);
  }

  /** Scans [from, to); windows must be given in order, edges on code point boundaries. */
  step(from: number, to: number): void {
    const { text } = this.scan;
    const sliceStart = Math.max(0, from - LOOKBEHIND);
    const slice = text.slice(sliceStart, Math.min(text.length, to + OVERLAP));
    const base64 = onlyBase64(slice);
    // Base64 characters are all plain ASCII: no character rule has anything to look at.
    if (base64) this.characters.skip(to);
    else this.characters.step(from, to);
    this.words.step(slice, sliceStart, from, to, base64);
    this.urls.step(slice, sliceStart, from, to);
    this.base64.step(slice, sliceStart, from, to);
  }

  /** Every finding, most severe first. */
  finish(): Finding[] {
    const scan = this.scan;
    const { text, noun } = scan;
    this.characters.finish();
    scan.findings.push(...this.words.wordFindings(), ...this.words.crossFindings());
    this.urls.finish();
    this.base64.finish();
    if (scan.where === 'description' && text.length > LONG_DESCRIPTION_CHARS) {
      // Show the tail: the part a person is least likely to have scrolled to.
      const start = boundary(text, text.length - MATCH_CHARS);
      add(scan, 'long-description', 'long', `${noun} is ${text.length} characters long, and instructions can hide in long text.`, start, text.length);
    }
    return scan.findings.sort(worstFirst);
  }
}
