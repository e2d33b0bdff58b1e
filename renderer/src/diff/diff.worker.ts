// Computes diffs off the UI thread: a 10,000-line file must never freeze the window.
import { computeLineDiff } from './diff-core';
import type { DiffRequest, DiffResponse } from './diff-protocol';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<DiffRequest>) => void) | null;
  postMessage(msg: DiffResponse): void;
};

scope.onmessage = (e) => {
  const { id, before, after, timeoutMs, context } = e.data;
  try {
    const result = computeLineDiff(before, after, { timeoutMs, context });
    scope.postMessage(result ? { id, ok: true, result } : { id, ok: false, reason: 'too-different' });
  } catch (err) {
    scope.postMessage({ id, ok: false, reason: 'error', message: String(err) });
  }
};
