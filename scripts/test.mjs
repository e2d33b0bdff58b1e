// `npm test`: every step runs and reports, and the run fails if any step failed.
// Build is fatal: tests on a failed build would run a stale dist/ (the freshness check refuses them anyway).
// The test groups are independent: a failing unit test must not hide the browser tests' results.
// Typecheck is not fatal: esbuild and vitest strip types, so the tests still say something true about the
// code, and the run still fails. Add a step (lint, check:cycles…) by adding a line to STEPS.
import { runSteps } from './run-steps.mjs';

const STEPS = [
  { name: 'build', command: ['npm', 'run', '--silent', 'build'], fatal: true },
  { name: 'typecheck', command: ['npm', 'run', '--silent', 'typecheck'] },
  { name: 'cycles', command: ['npm', 'run', '--silent', 'check:cycles'] },
  { name: 'lint', command: ['npm', 'run', '--silent', 'lint'] },
  { name: 'format', command: ['npm', 'run', '--silent', 'format:check'] },
  { name: 'vitest', command: ['npx', 'vitest', 'run'] },
  { name: 'playwright', command: ['npx', 'playwright', 'test'] },
];

process.exitCode = runSteps(STEPS) ? 0 : 1;
