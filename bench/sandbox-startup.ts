// Sandbox start-up overhead: time from spawning server-filesystem to its first tools/list answer,
// unsandboxed, in its own PID namespace (what every server gets where bubblewrap works), and fully
// limited (no network, read-only root, nothing else of home), and each limit alone. Interleaved launch by launch, so drift
// spreads over every way instead of favouring one.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { NO_LIMITS, type LimitsProfile, type SandboxSupport } from '../shared/limits.js';
import { detectSandbox } from '../electron/broker/upstream/sandbox/detect.js';
import { planLaunch } from '../electron/broker/upstream/sandbox/launch-plan.js';
import { StdioUpstream } from '../electron/broker/upstream/stdio-upstream.js';
import type { BenchCase } from './case.js';
import { NODE, ROOT } from './broker.js';
import { summarize, table } from './stats.js';

const LAUNCHES = 30;
const WARMUP = 3;
const FILESYSTEM_SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

interface Way {
  name: string;
  limits: LimitsProfile;
  support: SandboxSupport;
  samples: number[];
}

async function launch(way: Way, dir: string): Promise<number> {
  const start = performance.now();
  const upstream = new StdioUpstream({ command: NODE, args: [FILESYSTEM_SERVER, dir] }, { sandbox: { limits: way.limits, support: way.support } });
  const client = new Client({ name: 'countersign-bench-sandbox', version: '1.0.0' });
  try {
    await client.connect(upstream as unknown as Transport);
    const { tools } = await client.listTools();
    const elapsed = performance.now() - start;
    if (!tools.some((t) => t.name === 'read_text_file')) throw new Error(`${way.name}: unexpected tools/list answer`);
    return elapsed;
  } finally {
    await client.close();
  }
}

export const sandboxStartup: BenchCase = {
  name: 'sandbox-startup',
  async run(out) {
    const bwrap = await detectSandbox();
    if (bwrap.kind !== 'bubblewrap') {
      out(`sandbox start-up: not measured, there is no working sandbox here (${bwrap.kind === 'none' ? bwrap.reason : bwrap.kind})`);
      return;
    }
    const none: SandboxSupport = { kind: 'none', reason: 'measured without, on purpose' };
    const dir = mkdtempSync(join(tmpdir(), 'cs-bench-sandbox-'));
    const ways: Way[] = [
      { name: 'unsandboxed', limits: NO_LIMITS, support: none, samples: [] },
      { name: 'PID namespace only', limits: NO_LIMITS, support: bwrap, samples: [] },
      { name: 'no network', limits: { ...NO_LIMITS, network: 'none' }, support: bwrap, samples: [] },
      { name: 'read-only root', limits: { ...NO_LIMITS, filesystem: { read: [dir], write: [] } }, support: bwrap, samples: [] },
      { name: 'no network + read-only root', limits: { network: 'none', filesystem: { read: [dir], write: [] }, passEnv: [] }, support: bwrap, samples: [] },
    ];
    // The sandbox's own cost, without a server's start-up noise around it: spawn to exit of `true`.
    const bare = ways.map((w) => ({ ...w, samples: [] as number[] }));
    try {
      for (let i = 0; i < WARMUP; i++) for (const w of ways) await launch(w, dir);
      for (let i = 0; i < LAUNCHES; i++) for (const w of ways) w.samples.push(await launch(w, dir));
      for (let i = 0; i < WARMUP; i++) for (const w of bare) await runTrue(w, dir);
      for (let i = 0; i < BARE_RUNS; i++) for (const w of bare) w.samples.push(await runTrue(w, dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    out(
      `Sandbox start-up: spawn to first tools/list answer of server-filesystem, ${LAUNCHES} launches per way (${WARMUP} warm-up rounds not counted), interleaved`,
    );
    report(ways, out);
    out('');
    out(`The sandbox alone: spawn to exit of /usr/bin/true, ${BARE_RUNS} runs per way, interleaved`);
    report(bare, out);
  },
};

const BARE_RUNS = 200;

async function runTrue(way: Way, dir: string): Promise<number> {
  const plan = planLaunch({ command: '/usr/bin/true', cwd: dir }, { limits: way.limits, support: way.support });
  const start = performance.now();
  await new Promise<void>((resolve, reject) => execFile(plan.command, plan.args, { env: plan.env, cwd: plan.cwd }, (err) => (err ? reject(err) : resolve())));
  return performance.now() - start;
}

function report(ways: Way[], out: (line: string) => void): void {
  const stats = ways.map((w) => ({ name: w.name, ...summarize(w.samples) }));
  const base = stats[0]!;
  const signed = (v: number): string => `${v < 0 ? '−' : '+'}${Math.abs(v).toFixed(1)}`;
  const rows = stats.map((s) => [s.name, s.median.toFixed(1), s.p99.toFixed(1), signed(s.median - base.median), `${(s.median / base.median).toFixed(2)}×`]);
  out('');
  for (const line of table(['way', 'median ms', 'p99 ms', 'median − unsandboxed ms', 'median vs unsandboxed'], rows)) out(line);
}
