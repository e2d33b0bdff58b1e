// Line diff shaped for display: changed lines with a few lines of context, the unchanged stretches
// between them folded into gaps. The result is packed into typed arrays that point into the two texts
// (which the UI already has), so a 10,000-line diff crosses back from the worker almost for free and
// rows are made only for what is on screen. Pure: runs in the diff worker, and directly in tests.
import { diffLines } from 'diff';

export const CTX = 0;
export const ADD = 1;
export const DEL = 2;
export const GAP = 3;

export interface PackedDiff {
  /** Per row: CTX, ADD, DEL or GAP. */
  kinds: Uint8Array;
  /** 1-based line numbers in the old / new text (0 when the row has none); a gap's first line. */
  a: Int32Array;
  b: Int32Array;
  /** Lines folded into a gap (0 for other rows). */
  count: Int32Array;
  added: number;
  removed: number;
}

export interface DiffLine {
  t: 'ctx' | 'add' | 'del';
  a?: number;
  b?: number;
  text: string;
}

export interface DiffGap {
  t: 'gap';
  a: number;
  b: number;
  count: number;
}

export type DiffRow = DiffLine | DiffGap;

export interface DiffOptions {
  context?: number;
  /** jsdiff gives up after this long (ms) and the result is undefined. */
  timeoutMs?: number;
}

export function splitLines(value: string): string[] {
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function lineCount(value: string): number {
  let n = 0;
  for (let i = value.indexOf('\n'); i !== -1; i = value.indexOf('\n', i + 1)) n++;
  return value.endsWith('\n') || value === '' ? n : n + 1;
}

export function computeLineDiff(before: string, after: string, opts: DiffOptions = {}): PackedDiff | undefined {
  const context = opts.context ?? 3;
  const changes = opts.timeoutMs ? diffLines(before, after, { timeout: opts.timeoutMs }) : diffLines(before, after);
  if (!changes) return undefined;
  // One entry per line first (kind, a, b), then fold.
  const total = changes.reduce((n, c) => n + lineCount(c.value), 0);
  const kind = new Uint8Array(total);
  const la = new Int32Array(total);
  const lb = new Int32Array(total);
  let i = 0;
  let a = 1;
  let b = 1;
  let added = 0;
  let removed = 0;
  for (const c of changes) {
    const n = lineCount(c.value);
    for (let k = 0; k < n; k++, i++) {
      if (c.added) {
        kind[i] = ADD;
        lb[i] = b++;
        added++;
      } else if (c.removed) {
        kind[i] = DEL;
        la[i] = a++;
        removed++;
      } else {
        kind[i] = CTX;
        la[i] = a++;
        lb[i] = b++;
      }
    }
  }
  return { ...fold(kind, la, lb, context), added, removed };
}

/** Keeps `context` unchanged lines around each change; longer unchanged runs become gaps. */
function fold(kind: Uint8Array, la: Int32Array, lb: Int32Array, context: number): Omit<PackedDiff, 'added' | 'removed'> {
  const n = kind.length;
  const keep = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (kind[i] === CTX) continue;
    for (let j = Math.max(0, i - context); j <= Math.min(n - 1, i + context); j++) keep[j] = 1;
  }
  const kinds: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  const count: number[] = [];
  let gapStart = -1;
  const flush = (end: number) => {
    if (gapStart === -1) return;
    const len = end - gapStart;
    // Folding a single line saves nothing.
    if (len === 1) (kinds.push(CTX), a.push(la[gapStart]!), b.push(lb[gapStart]!), count.push(0));
    else (kinds.push(GAP), a.push(la[gapStart]!), b.push(lb[gapStart]!), count.push(len));
    gapStart = -1;
  };
  for (let i = 0; i < n; i++) {
    if (keep[i]) {
      flush(i);
      (kinds.push(kind[i]!), a.push(la[i]!), b.push(lb[i]!), count.push(0));
    } else if (gapStart === -1) gapStart = i;
  }
  flush(n);
  return { kinds: Uint8Array.from(kinds), a: Int32Array.from(a), b: Int32Array.from(b), count: Int32Array.from(count) };
}

const NAMES = ['ctx', 'add', 'del'] as const;

/** Row `i`, with its text taken from the split old/new lines. */
export function rowAt(d: PackedDiff, i: number, oldLines: string[], newLines: string[]): DiffRow {
  const k = d.kinds[i]!;
  const a = d.a[i]!;
  const b = d.b[i]!;
  if (k === GAP) return { t: 'gap', a, b, count: d.count[i]! };
  const t = NAMES[k]!;
  const text = (t === 'add' ? newLines[b - 1] : oldLines[a - 1]) ?? '';
  return { t, ...(a && { a }), ...(b && { b }), text };
}

/** All rows, for tests and small diffs. */
export function unpack(d: PackedDiff, before: string, after: string): DiffRow[] {
  const o = splitLines(before);
  const n = splitLines(after);
  return Array.from(d.kinds, (_, i) => rowAt(d, i, o, n));
}
