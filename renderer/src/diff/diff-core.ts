// Line diff shaped for display: changed lines with a few lines of context, the unchanged stretches
// between them folded into gaps. A gap carries only where it starts and how long it is: its lines are
// in the old text, which the UI already has, so a big diff costs little to send back from the worker.
// Pure: runs in the diff worker, and directly in tests.
import { diffLines } from 'diff';

export interface DiffLine {
  t: 'ctx' | 'add' | 'del';
  /** 1-based line numbers in the old / new text. */
  a?: number;
  b?: number;
  text: string;
}

export interface DiffGap {
  t: 'gap';
  /** 1-based numbers of the first folded line in the old and new texts. */
  a: number;
  b: number;
  count: number;
}

export type DiffRow = DiffLine | DiffGap;

export interface DiffResult {
  rows: DiffRow[];
  added: number;
  removed: number;
}

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

export function computeLineDiff(before: string, after: string, opts: DiffOptions = {}): DiffResult | undefined {
  const context = opts.context ?? 3;
  const changes = opts.timeoutMs ? diffLines(before, after, { timeout: opts.timeoutMs }) : diffLines(before, after);
  if (!changes) return undefined;
  const flat: DiffLine[] = [];
  let a = 1;
  let b = 1;
  let added = 0;
  let removed = 0;
  for (const c of changes) {
    for (const text of splitLines(c.value)) {
      if (c.added) {
        flat.push({ t: 'add', b: b++, text });
        added++;
      } else if (c.removed) {
        flat.push({ t: 'del', a: a++, text });
        removed++;
      } else flat.push({ t: 'ctx', a: a++, b: b++, text });
    }
  }
  return { rows: foldContext(flat, context), added, removed };
}

/** Keeps `context` unchanged lines around each change; longer unchanged runs become gaps. */
export function foldContext(lines: DiffLine[], context: number): DiffRow[] {
  const keep = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    if (l.t === 'ctx') return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = 1;
  });
  const rows: DiffRow[] = [];
  let gap: DiffLine[] = [];
  const flush = () => {
    // Folding a single line saves nothing.
    if (gap.length === 1) rows.push(gap[0]!);
    else if (gap.length > 1) rows.push({ t: 'gap', a: gap[0]!.a!, b: gap[0]!.b!, count: gap.length });
    gap = [];
  };
  lines.forEach((l, i) => {
    if (keep[i]) {
      flush();
      rows.push(l);
    } else gap.push(l);
  });
  flush();
  return rows;
}
