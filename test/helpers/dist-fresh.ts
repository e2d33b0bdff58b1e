// Global setup of vitest and Playwright: integration and browser tests run bin/countersign.mjs → dist/,
// so refuse to start on a dist/ built from other sources than those in the tree.
// It does not build by itself: two runs side by side would then rebuild dist/ under each other's feet.
import { distFreshness, freshnessMessage } from '../../scripts/source-stamp.mjs';
import { ROOT } from './paths.js';

export default function checkDistFresh(): void {
  const result = distFreshness(ROOT);
  if (result.fresh) return;
  const error = new Error(freshnessMessage(result));
  error.stack = error.message; // the message says it all; a stack through vitest's internals does not help
  throw error;
}
