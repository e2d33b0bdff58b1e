// A DiffEngine backed by a Web Worker under a hard time cap. jsdiff's own timeout bounds the search;
// the cap also covers a worker that is stuck or slow to start, by terminating it.
import type { DiffEngine, DiffOutcome, DiffRequest, DiffResponse } from './diff-protocol';

export const DIFF_TIME_CAP_MS = 1500;

export function createWorkerDiffEngine(capMs = DIFF_TIME_CAP_MS): DiffEngine {
  let seq = 0;
  return {
    diff(before, after, signal) {
      return new Promise<DiffOutcome>((resolve) => {
        // One worker per diff: terminating it is the only way to stop a running computation.
        const worker = new Worker(new URL('./diff.worker.ts', import.meta.url), { type: 'module', name: 'countersign-diff' });
        const id = ++seq;
        const done = (outcome: DiffOutcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          worker.terminate();
          resolve(outcome);
        };
        const onAbort = () => done({ ok: false, reason: 'cancelled' });
        const timer = setTimeout(() => done({ ok: false, reason: 'too-different' }), capMs);
        signal?.addEventListener('abort', onAbort);
        worker.onmessage = (e: MessageEvent<DiffResponse>) => {
          const msg = e.data;
          if (msg.id !== id) return;
          done(msg.ok ? { ok: true, result: msg.result } : { ok: false, reason: msg.reason, message: msg.message });
        };
        worker.onerror = (e) => done({ ok: false, reason: 'error', message: e.message || 'the diff worker failed' });
        const req: DiffRequest = { id, before, after, timeoutMs: capMs - 200, context: 3 };
        worker.postMessage(req);
      });
    },
  };
}
