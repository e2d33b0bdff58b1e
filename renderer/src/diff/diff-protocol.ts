// Messages between the UI and the diff worker.
import type { PackedDiff } from './diff-core';

export interface DiffRequest {
  id: number;
  before: string;
  after: string;
  timeoutMs: number;
  context: number;
}

export type DiffResponse = { id: number; ok: true; result: PackedDiff } | { id: number; ok: false; reason: 'too-different' | 'error'; message?: string };

export type DiffOutcome = { ok: true; result: PackedDiff } | { ok: false; reason: 'too-different' | 'error' | 'cancelled'; message?: string };

/** Runs diffs somewhere (a worker in the app, inline in tests). */
export interface DiffEngine {
  diff(before: string, after: string, signal?: AbortSignal): Promise<DiffOutcome>;
}
