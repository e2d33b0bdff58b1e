// A DiffEngine that computes on the calling thread: for tests and environments without workers.
import { computeLineDiff } from './diff-core';
import type { DiffEngine } from './diff-protocol';

export function createInlineDiffEngine(timeoutMs = 1300): DiffEngine {
  return {
    async diff(before, after) {
      const result = computeLineDiff(before, after, { timeoutMs });
      return result ? { ok: true, result } : { ok: false, reason: 'too-different' };
    },
  };
}
