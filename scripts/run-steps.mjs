// Runs a list of commands one after another, prints what each did, and says whether all passed.
// A step marked fatal stops the list when it fails (later steps are listed as skipped).
import { spawnSync } from 'node:child_process';

/**
 * @param {{ name: string, command: string[], fatal?: boolean }[]} steps
 * @param {(text: string) => void} [write]
 * @returns {boolean} true when every step ran and passed
 */
export function runSteps(steps, write = (text) => process.stdout.write(text)) {
  const results = [];
  for (const step of steps) {
    write(`\n── ${step.name}: ${step.command.join(' ')}\n`);
    const started = performance.now();
    const run = spawnSync(step.command[0], step.command.slice(1), { stdio: 'inherit', shell: process.platform === 'win32' });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const ok = run.status === 0;
    const outcome = ok
      ? 'passed'
      : run.error
        ? `could not start (${run.error.message})`
        : run.signal
          ? `killed (${run.signal})`
          : `failed (exit ${run.status})`;
    results.push({ name: step.name, ok, outcome, seconds });
    if (!ok && step.fatal) break;
  }
  const skipped = steps.slice(results.length).map((s) => s.name);
  write('\n── summary\n');
  for (const r of results) write(`  ${r.ok ? 'ok  ' : 'FAIL'}  ${r.name.padEnd(12)} ${r.outcome}, ${r.seconds} s\n`);
  for (const name of skipped) write(`  skip  ${name.padEnd(12)} not run: an earlier step it needs failed\n`);
  return results.every((r) => r.ok) && !skipped.length;
}
