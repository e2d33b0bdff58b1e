// Computes diffs off the UI thread: a 10,000-line file must never freeze the window.
import { computeLineDiff } from './diff-core';
import type { DiffRequest, DiffResponse } from './diff-protocol';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<DiffRequest>) => void) | null;
  postMessage(msg: DiffResponse, transfer?: Transferable[]): void;
};

scope.onmessage = (e) => {
  const { id, before, after, timeoutMs, context } = e.data;
  try {
    const result = computeLineDiff(before, after, { timeoutMs, context });
    if (!result) scope.postMessage({ id, ok: false, reason: 'too-different' });
    // Transferred, not copied: the typed arrays move to the UI thread at no cost.
    else scope.postMessage({ id, ok: true, result }, [result.kinds.buffer, result.a.buffer, result.b.buffer, result.count.buffer]);
  } catch (err) {
    scope.postMessage({ id, ok: false, reason: 'error', message: String(err) });
  }
};
