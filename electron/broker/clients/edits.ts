// Edits of a file's text as spans, applied in one pass, and the preview's diff made from those spans
// alone: a 10 MB file with three wrapped entries costs a diff of those entries and their context, not
// of the whole file. Line ends show as lines (the file's CRLF is named once, not as \r on every line).
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff';
import { maskRanges } from './config-format.js';

export interface Edit {
  start: number;
  end: number;
  text: string;
  /** Spans of secret values in `text` (masked in the diff). */
  secrets?: Array<[number, number]>;
}

const MASK = '"••••"';
const CONTEXT = 3;

/** The text with each span replaced; spans must not overlap. */
export function splice(text: string, edits: readonly Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) throw new Error('overlapping edits');
    parts.push(text.slice(at, e.start), e.text);
    at = e.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/** The one edit that turns `before` into `after`: what lies between their common start and end, in whole lines. */
export function editBetween(before: string, after: string): Edit[] {
  if (before === after) return [];
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let tail = 0;
  while (tail < max - start && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  start = before.lastIndexOf('\n', start - 1) + 1;
  return [{ start, end: before.length - tail, text: after.slice(start, after.length - tail) }];
}

export function lineEndsOf(text: string): 'crlf' | 'mixed' | undefined {
  if (!text.includes('\r\n')) return undefined;
  return /(?:^|[^\r])\n/.test(text) ? 'mixed' : 'crlf';
}

/** A unified diff of the edits, with `secrets` (spans of `before`) and each edit's own secrets masked. */
export function diffOfEdits(path: string, before: string, edits: readonly Edit[], secrets: ReadonlyArray<[number, number]> = []): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start).filter((e) => before.slice(e.start, e.end) !== e.text);
  if (!sorted.length) return '';
  const hunks: StructuredPatchHunk[] = [];
  let line = 1; // line number at `counted`
  let counted = 0;
  let delta = 0; // lines added so far by earlier regions
  for (const region of regions(before, sorted)) {
    line += countLines(before, counted, region.start);
    counted = region.start;
    const old = before.slice(region.start, region.end);
    const inner = region.edits.map((e) => ({ ...e, start: e.start - region.start, end: e.end - region.start }));
    const oldSecrets = secrets.filter(([s, e]) => s >= region.start && e <= region.end).map(([s, e]): [number, number] => [s - region.start, e - region.start]);
    const { text: now, secrets: newSecrets } = applyWithSecrets(old, inner, oldSecrets);
    const patch = structuredPatch('', '', shown(old, oldSecrets), shown(now, newSecrets), undefined, undefined, { context: CONTEXT });
    for (const h of patch.hunks) hunks.push({ ...h, oldStart: h.oldStart + line - 1, newStart: h.newStart + line - 1 + delta });
    delta += countLines(now, 0, now.length) - countLines(old, 0, old.length);
  }
  return formatPatch({ oldFileName: path, newFileName: path, oldHeader: 'before', newHeader: 'after', hunks }, FILE_HEADERS_ONLY);
}

const shown = (text: string, secrets: Array<[number, number]>): string => maskRanges(text, secrets, MASK).replace(/\r\n/g, '\n');

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at >= 0 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** Whole-line regions around the edits, with some lines of context, merged where they meet. */
function regions(text: string, edits: readonly Edit[]): Array<{ start: number; end: number; edits: Edit[] }> {
  const out: Array<{ start: number; end: number; edits: Edit[] }> = [];
  for (const e of edits) {
    let start = text.lastIndexOf('\n', e.start - 1) + 1;
    for (let i = 0; i < CONTEXT && start > 0; i++) start = text.lastIndexOf('\n', start - 2) + 1;
    const lineEnd = (at: number) => {
      const nl = text.indexOf('\n', at);
      return nl < 0 ? text.length : nl + 1;
    };
    let end = e.end > 0 && text[e.end - 1] !== '\n' ? lineEnd(e.end) : e.end;
    for (let i = 0; i < CONTEXT && end < text.length; i++) end = lineEnd(end);
    const last = out.at(-1);
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      last.edits.push(e);
    } else out.push({ start, end, edits: [e] });
  }
  return out;
}

function applyWithSecrets(text: string, edits: Edit[], secrets: Array<[number, number]>): { text: string; secrets: Array<[number, number]> } {
  const out: Array<[number, number]> = [];
  let result = '';
  let at = 0;
  for (const e of edits) {
    for (const [s, f] of secrets) if (s >= at && f <= e.start) out.push([s - at + result.length, f - at + result.length]);
    result += text.slice(at, e.start);
    for (const [s, f] of e.secrets ?? []) out.push([s + result.length, f + result.length]);
    result += e.text;
    at = e.end;
  }
  for (const [s, f] of secrets) if (s >= at) out.push([s - at + result.length, f - at + result.length]);
  return { text: result + text.slice(at), secrets: out };
}
