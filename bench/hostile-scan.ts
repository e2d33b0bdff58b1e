// Scanning hostile-sized arguments: 10 MB of base64, prose, mixed Unicode and keyword-dense text, and
// base64 and prose against 300 other servers' tool names (each one a rule of the scan).
// - the text scan (electron/broker/checks/scan/) alone, beside JSON.stringify of the same text (what the
//   broker does anyway to log it), target ≤ 200 ms per 10 MB;
// - the broker's argument scan (scanArguments), which yields: the longest the event loop was held while
//   it ran, measured by an independent setImmediate loop, target ≤ 50 ms;
// - the self-protection path search and its check for a run of Countersign's CLI on the same text, and
//   the nesting check on 100,000 levels.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { MAX_ARGUMENT_DEPTH, nestingDepth, scanArguments } from '../electron/broker/checks/argument-checks.js';
import { scanText } from '../electron/broker/checks/scan/index.js';
import { cliRun } from '../shared/cli-invocation.js';
import { pathCandidates } from '../shared/protected-paths.js';
import type { BenchCase } from './case.js';
import { median, table } from './stats.js';

const SIZE = 10_000_000;
const ROUNDS = 5;
const TARGET_SCAN_MS = 200;
const TARGET_STALL_MS = 50;
const SERVERS = [
  { server: 'mail', tools: ['send_email', 'read_inbox'] },
  { server: 'fs', tools: ['read_file', 'write_file'] },
];

// A user with many servers: 300 other tools, each name a rule of the scan.
const VERBS = ['read', 'write', 'list', 'get', 'create', 'delete', 'update', 'search', 'send', 'fetch'];
const NOUNS = ['file', 'issue', 'email', 'page', 'user', 'repo', 'branch', 'event', 'note', 'table', 'row', 'doc', 'task', 'comment', 'label'];
const MANY_SERVERS = [0, 1].map((i) => ({ server: `s${i}`, tools: VERBS.flatMap((v) => NOUNS.map((n) => `${v}_${n}${i ? 's' : ''}`)) }));

const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
const TEXTS: Array<[string, () => string, typeof SERVERS?]> = [
  ['base64', () => randomBytes((SIZE / 4) * 3).toString('base64')],
  ['prose', () => fill('The quick brown fox jumps over the lazy dog, then naps in the sun. ')],
  ['source code', () => fill('export function f(a: number): string {\n  return `${a}`; // see ./lib/util.ts\n}\n')],
  ['mixed Unicode', () => fill('Grüße, 世界! Привет мир. مرحبا \u200d🏳️‍🌈 ')],
  ['keyword-dense', () => fill('the user token api password first before secret <b> ignore mention .env ')],
  ['base64, 300 tools', () => randomBytes((SIZE / 4) * 3).toString('base64'), MANY_SERVERS],
  ['prose, 300 tools', () => fill('The quick brown fox jumps over the lazy dog, then naps in the sun. '), MANY_SERVERS],
];

// CPU time of this process: on a shared machine wall time also counts the turns other processes got.
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
function timed(fn: () => unknown): number {
  const start = cpuMs();
  fn();
  return cpuMs() - start;
}

/**
 * Runs fn while a setImmediate loop records the longest gap between its turns, in CPU time (what our
 * code held the loop for) and in wall time (that plus any time the OS gave other processes).
 */
async function withStallMeter<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; stallMs: number; wallStallMs: number }> {
  let stall = 0;
  let wallStall = 0;
  let last = cpuMs();
  let lastWall = performance.now();
  let running = true;
  const tick = (): void => {
    const now = cpuMs();
    const wall = performance.now();
    stall = Math.max(stall, now - last);
    wallStall = Math.max(wallStall, wall - lastWall);
    last = now;
    lastWall = wall;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const start = cpuMs();
  const value = await fn();
  const ms = cpuMs() - start;
  running = false;
  tick();
  return { value, ms, stallMs: stall, wallStallMs: wallStall };
}

const fmt = (n: number) => n.toFixed(0);
const mark = (n: number, target: number) => `${fmt(n)}${n <= target ? '' : ' (!)'}`;

export const hostileScan: BenchCase = {
  name: 'hostile-scan',
  async run(out) {
    const rows: string[][] = [];
    for (const [name, make, servers = SERVERS] of TEXTS) {
      const text = make();
      const sync: number[] = [];
      const baseline: number[] = [];
      const total: number[] = [];
      const stall: number[] = [];
      const wallStall: number[] = [];
      const paths: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        baseline.push(timed(() => JSON.stringify(text)));
        sync.push(timed(() => scanText(text, { otherServers: servers, where: 'argument' })));
        const scanned = await withStallMeter(() => scanArguments({ content: text }, servers));
        total.push(scanned.ms);
        stall.push(scanned.stallMs);
        wallStall.push(scanned.wallStallMs);
        paths.push(
          timed(() => {
            pathCandidates({ content: text });
            cliRun({ content: text });
          }),
        );
      }
      const med = (xs: number[]) => median([...xs].sort((a, b) => a - b));
      rows.push([
        name,
        mark(med(sync), TARGET_SCAN_MS),
        fmt(med(baseline)),
        (med(sync) / med(baseline)).toFixed(1),
        mark(med(total), TARGET_SCAN_MS),
        mark(Math.max(...stall), TARGET_STALL_MS),
        fmt(Math.max(...wallStall)),
        fmt(med(paths)),
      ]);
    }
    out(
      `10 MB argument texts, CPU ms, median of ${ROUNDS} rounds; targets: scan ≤ ${TARGET_SCAN_MS} ms, event loop held ≤ ${TARGET_STALL_MS} ms; (!) marks a miss`,
    );
    out(
      "(longest stall: CPU time between two turns of the event loop, the worst of all rounds; wall: the same in wall time, which on a busy machine includes other processes' turns)",
    );
    for (const line of table(['text', 'scan', 'JSON.stringify', 'scan/stringify', 'scan, yielding', 'longest stall', 'wall', 'path + CLI search'], rows))
      out(line);

    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const t = performance.now();
    const depth = nestingDepth(deep);
    out(`nesting check of a 100,000-deep value: ${(performance.now() - t).toFixed(2)} ms, stops at depth ${depth} (limit ${MAX_ARGUMENT_DEPTH}), no recursion`);
  },
};
