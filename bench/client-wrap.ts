// Wrapping a 10 MB ~/.claude.json (a long-time Claude Code user's: a prompt history in every project),
// beside what reading and writing the same file costs anyway (JSON.parse + JSON.stringify):
// - the core's preview and confirmation (what the UI and the CLI ask for), in process;
// - `countersign wrap claude-code --yes` end to end, a Node process and all;
// - `countersign unwrap claude-code --yes --hash <plan>`, back to the exact bytes.
// Target: the wrap under 2 s.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { Broker } from '../electron/broker/core/broker.js';
import { bigClaudeJson } from '../test/helpers/big-claude-json.js';
import { CLI, NODE } from '../test/helpers/paths.js';
import type { BenchCase } from './case.js';
import { median, table } from './stats.js';

const run = promisify(execFile);
const SIZE = 10 * 1024 * 1024;
const ROUNDS = 3;
const TARGET_MS = 2000;

async function timed(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export const clientWrap: BenchCase = {
  name: 'client-wrap',
  async run(out) {
    const root = mkdtempSync(join(tmpdir(), 'cs-bench-wrap-'));
    const home = join(root, 'home');
    const file = join(home, '.claude.json');
    const text = bigClaudeJson(SIZE);
    const rows = { parse: [] as number[], core: [] as number[], cli: [] as number[], unwrap: [] as number[] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const dataDir = join(root, `data-${round}`);
        rmSync(home, { recursive: true, force: true });
        mkdirSync(home, { recursive: true });
        writeFileSync(file, text);
        rows.parse.push(await timed(() => writeFileSync(join(root, 'copy.json'), JSON.stringify(JSON.parse(readFileSync(file, 'utf8')), null, 2))));
        const broker = new Broker({ dataDir, home, env: {} });
        try {
          const api = broker.apiFor('cli');
          rows.core.push(await timed(async () => api.wrapClient('claude-code', {}, (await api.previewWrap('claude-code', {})).planHash)));
          await api.unwrapClient('claude-code', {});
        } finally {
          await broker.close();
        }
        if (readFileSync(file, 'utf8') !== text) throw new Error('unwrap did not give back the exact bytes');
        const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
        rows.cli.push(
          await timed(() => run(NODE, [CLI, '--data-dir', dataDir, 'wrap', 'claude-code', '--yes'], { cwd: home, env, maxBuffer: 64 * 1024 * 1024 })),
        );
        // Without a terminal, unwrap's consent is --yes with the plan hash it printed (the dry run, untimed).
        const shown = await run(NODE, [CLI, '--data-dir', dataDir, 'unwrap', 'claude-code', '--dry-run'], { cwd: home, env, maxBuffer: 64 * 1024 * 1024 });
        const plan = /plan hash ([0-9a-f]{64})/.exec(shown.stdout)?.[1] ?? '';
        rows.unwrap.push(
          await timed(() =>
            run(NODE, [CLI, '--data-dir', dataDir, 'unwrap', 'claude-code', '--yes', '--hash', plan], { cwd: home, env, maxBuffer: 64 * 1024 * 1024 }),
          ),
        );
        if (readFileSync(file, 'utf8') !== text) throw new Error('unwrap did not give back the exact bytes');
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    const m = (xs: number[]) => median([...xs].sort((a, b) => a - b));
    const base = m(rows.parse);
    out(`a ${(text.length / 1024 / 1024).toFixed(1)} MB ~/.claude.json, median of ${ROUNDS} rounds`);
    for (const line of table(
      ['what', 'ms', '× JSON.parse+stringify'],
      [
        ['JSON.parse + JSON.stringify + write (the floor)', base.toFixed(0), '1.0'],
        ['core: preview + wrap (one parse)', m(rows.core).toFixed(0), (m(rows.core) / base).toFixed(1)],
        ['`countersign wrap claude-code --yes`', m(rows.cli).toFixed(0), (m(rows.cli) / base).toFixed(1)],
        ['`countersign unwrap claude-code --yes --hash`', m(rows.unwrap).toFixed(0), (m(rows.unwrap) / base).toFixed(1)],
      ],
    ))
      out(line);
    out(`target: wrap ≤ ${TARGET_MS} ms: ${m(rows.cli) <= TARGET_MS ? 'met' : 'MISSED'}`);
  },
};
