// What an undo snapshot adds to an allowed write_file (a rule allows it, no prompt) of 1 kB, 100 kB and
// 10 MB over an existing file, against the same call on a broker without snapshots: both brokers in this
// process, each with its own real server-filesystem, calls interleaved so drift spreads over both. Then
// the largest event-loop stall for 10 MB, whether this file system clones (FICLONE), and the store
// after 10,000 snapshots (its size, one snapshot's cost, listing the undoable calls).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startInProcess, type InProcess } from '../test/helpers/in-process.js';
import { approveShown, trustShown } from '../test/helpers/consent.js';
import { clonesHere } from '../electron/broker/undo/blob-store.js';
import { UndoService } from '../electron/broker/undo/undo-service.js';
import { ROOT, NODE } from './broker.js';
import type { BenchCase } from './case.js';
import { machine } from './machine.js';
import { summarize, table } from './stats.js';

const FILESYSTEM_SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const SIZES: Array<[string, number, number]> = [
  ['1 kB', 1_000, 200],
  ['100 kB', 100_000, 200],
  ['10 MB', 10_000_000, 20],
];
const MANY = Number(process.env.BENCH_UNDO_SNAPSHOTS) || 10_000;

interface Side {
  world: InProcess;
  client: Client;
  dir: string;
}

async function side(snapshots: boolean): Promise<Side> {
  const world = await startInProcess({ snapshots });
  const dir = join(world.dataDir, '..', `${world.dataDir.split('/').pop()}-files`);
  mkdirSync(dir, { recursive: true });
  await world.api.addServer('fs', { command: NODE, args: [FILESYSTEM_SERVER, dir] });
  await approveShown(world.call, 'fs');
  const client = await world.connect('fs', 'bench');
  await client.listTools();
  await trustShown(world.call, 'fs');
  world.broker.rules.add('fs', 'write_file', {}, 'cli');
  return { world, client, dir };
}

async function write(s: Side, name: string, content: string): Promise<number> {
  const start = performance.now();
  const r = (await s.client.callTool({ name: 'write_file', arguments: { path: join(s.dir, name), content } })) as { isError?: boolean };
  if (r.isError) throw new Error(`write_file failed: ${JSON.stringify(r)}`);
  return performance.now() - start;
}

export const undoSnapshot: BenchCase = {
  name: 'undo-snapshot',
  async run(out) {
    const on = await side(true);
    const off = await side(false);
    try {
      out('Undo snapshots: an allowed write_file over an existing file, with and without the snapshot (same run, interleaved)');
      out(machine());
      out(`FICLONE on this file system (${on.world.dataDir}): ${clonesHere(on.world.dataDir) ? 'yes, blobs are clones' : 'no, blobs are copies'}`);
      out('');
      const rows: string[][] = [];
      for (const [label, bytes, n] of SIZES) {
        const content = 'x'.repeat(bytes - 1) + '\n';
        const other = 'y'.repeat(bytes - 1) + '\n';
        for (const s of [on, off]) writeFileSync(join(s.dir, 'f.txt'), other);
        const times = { on: [] as number[], off: [] as number[] };
        const stall = { on: 0, off: 0 };
        for (let i = 0; i < n + 5; i++) {
          for (const [key, s] of [
            ['on', on],
            ['off', off],
          ] as const) {
            const h = monitorEventLoopDelay({ resolution: 1 });
            h.enable();
            const ms = await write(s, 'f.txt', i % 2 ? content : other);
            h.disable();
            if (i >= 5) {
              times[key].push(ms);
              stall[key] = Math.max(stall[key], h.max / 1e6);
            }
          }
        }
        const a = summarize(times.on);
        const b = summarize(times.off);
        rows.push([
          label,
          b.median.toFixed(2),
          a.median.toFixed(2),
          (a.median - b.median).toFixed(2),
          (a.median / b.median).toFixed(2),
          b.p99.toFixed(2),
          a.p99.toFixed(2),
          stall.off.toFixed(1),
          stall.on.toFixed(1),
        ]);
      }
      for (const l of table(
        ['write_file', 'off median ms', 'on median ms', 'added ms', 'ratio', 'off p99', 'on p99', 'off max stall ms', 'on max stall ms'],
        rows,
      ))
        out(l);
      out('Targets: under 1 ms added for 100 kB where a clone is available; no extra stall over 50 ms for 10 MB.');
    } finally {
      await on.world.close();
      await off.world.close();
      rmSync(on.dir, { recursive: true, force: true });
      rmSync(off.dir, { recursive: true, force: true });
    }
    await alone(out);
    await many(out);
  },
};

/** The snapshot of one file alone (no call around it): its time and the longest it held the event loop. */
async function alone(out: (line: string) => void): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'cs-bench-undo-'));
  try {
    const undo = service(root);
    const rows: string[][] = [];
    for (const [label, bytes] of SIZES) {
      const file = join(root, `f-${bytes}`);
      const times: number[] = [];
      let stall = 0;
      for (let i = 0; i < 12; i++) {
        writeFileSync(file, Buffer.alloc(bytes, 97 + (i % 26)));
        const h = monitorEventLoopDelay({ resolution: 1 });
        h.enable();
        const t = performance.now();
        const kept = await undo.beforeForward({ server: 'fs', tool: 'write_file', arguments: { path: file, content: 'x' } });
        times.push(performance.now() - t);
        h.disable();
        if (i >= 2) stall = Math.max(stall, h.max / 1e6);
        await kept.settle('ok');
      }
      const s = summarize(times.slice(2));
      rows.push([label, s.median.toFixed(2), s.p99.toFixed(2), stall.toFixed(1)]);
    }
    out('');
    out('The snapshot alone (before the call is forwarded: copy, hash, fsync of blob, folder and index):');
    for (const l of table(['file', 'median ms', 'max ms', 'max event-loop stall ms'], rows)) out(l);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function service(root: string): UndoService {
  return new UndoService({
    dataDir: join(root, 'data'),
    keyOf: () => Buffer.alloc(32, 1),
    settings: () => ({ approvalTimeoutSeconds: 120, upstreamTimeoutSeconds: 300, theme: 'system' }),
    record: () => undefined,
    entries: async () => [],
  });
}

/** The store after MANY snapshots of distinct 1 kB files: its size, one snapshot's cost, a listing. */
async function many(out: (line: string) => void): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'cs-bench-undo-'));
  try {
    const undo = service(root);
    const file = join(root, 'f.txt');
    const cost: number[] = [];
    const started = performance.now();
    for (let i = 0; i < MANY; i++) {
      writeFileSync(file, `${i} `.repeat(250).slice(0, 1000));
      const t = performance.now();
      await undo.beforeForward({ server: 'fs', tool: 'write_file', arguments: { path: file, content: 'x' } });
      cost.push(performance.now() - t);
    }
    const total = performance.now() - started;
    await undo.idle();
    const du = execFileSync('du', ['-sk', join(root, 'data', 'snapshots')], { encoding: 'utf8' }).split('\t')[0];
    const idx = execFileSync('du', ['-k', join(root, 'data', 'snapshots', 'index.jsonl')], { encoding: 'utf8' }).split('\t')[0];
    const first = summarize(cost.slice(0, 100));
    const last = summarize(cost.slice(-100));
    const t = performance.now();
    const listed = await undo.list();
    const listMs = performance.now() - t;
    out('');
    out(`After ${MANY.toLocaleString('en')} snapshots of distinct 1 kB files (${(total / 1000).toFixed(1)} s): store ${du} kB on disk (index ${idx} kB)`);
    for (const l of table(
      ['one snapshot', 'median ms', 'p99 ms'],
      [
        ['first 100', first.median.toFixed(2), first.p99.toFixed(2)],
        ['last 100', last.median.toFixed(2), last.p99.toFixed(2)],
      ],
    ))
      out(l);
    out(`listUndoable over ${listed.length.toLocaleString('en')} calls (every index line's seal checked): ${listMs.toFixed(0)} ms`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
