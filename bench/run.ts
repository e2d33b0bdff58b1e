// `npm run bench [-- <case>…]`: runs each benchmark case and prints its report. Benchmarks report, they do
// not gate: a missed target still exits 0; only a case that broke makes the exit code non-zero.
import type { BenchCase } from './case.js';
import { auditExportBench } from './audit-export.js';
import { auditQuery } from './audit-query.js';
import { clientWrap } from './client-wrap.js';
import { coldStart } from './cold-start.js';
import { hostileScan } from './hostile-scan.js';
import { idleMemory } from './idle-memory.js';
import { mcpLatency } from './mcp-latency.js';
import { npxStartup } from './npx-startup.js';
import { sandboxStartup } from './sandbox-startup.js';
import { scriptedSession } from './scripted-session.js';
import { throughput } from './throughput.js';
import { uiQueue } from './ui-queue.js';
import { undoSnapshot } from './undo-snapshot.js';

// Add a case (e.g. a UI benchmark) by writing a module that exports a BenchCase and listing it here.
const CASES: BenchCase[] = [
  mcpLatency,
  throughput,
  coldStart,
  idleMemory,
  auditQuery,
  auditExportBench,
  uiQueue,
  sandboxStartup,
  hostileScan,
  scriptedSession,
  clientWrap,
  npxStartup,
  undoSnapshot,
];

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((a) => !CASES.some((c) => c.name === a));
  if (unknown.length) {
    process.stderr.write(`bench: unknown case ${unknown.join(', ')}; known: ${CASES.map((c) => c.name).join(', ')}\n`);
    return 64;
  }
  const selected = argv.length ? CASES.filter((c) => argv.includes(c.name)) : CASES;
  let failed = 0;
  for (const c of selected) {
    process.stdout.write(`== ${c.name}\n`);
    try {
      await c.run((line) => process.stdout.write(`${line}\n`));
    } catch (err) {
      failed += 1;
      process.stderr.write(`bench: case '${c.name}' broke: ${(err as Error).stack ?? String(err)}\n`);
    }
    process.stdout.write('\n');
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
