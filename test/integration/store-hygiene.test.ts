// Store hygiene, as ssh's StrictModes: a data folder or store file that someone else could have
// written (a symbolic link, group- or world-writable) puts the broker in safe mode, with the fix to
// run; a stale lock naming an unrelated live process is recovered; temp files of killed writes are
// cleaned at start. Real folders, files, processes and the real CLI.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Broker } from '../../electron/broker/core/broker.js';
import { configure, makeDataDir, removeDir } from '../helpers/broker-harness.js';
import { seenOf, viewOf } from '../helpers/consent.js';
import { CLI, MEMORY_SERVER, NODE } from '../helpers/paths.js';
import { grantCli, runCli } from '../helpers/cli-run.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

const run = promisify(execFile);
const cs = runCli;

let world: InProcess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await world?.close();
  world = undefined;
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('safe mode', () => {
  it('a world-writable data folder: nothing trusted or started until `chmod go-w` is run, then all is back', async () => {
    world = await startInProcess();
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { trusted: true });
    const client = await world.connect('notes');
    await client.listTools();
    await client.callTool({ name: 'read_notes', arguments: {} });
    expect(server.calls.list).toHaveLength(1);

    chmodSync(world.dataDir, 0o777);
    world.broker.seal.recheck();
    const warnings = (await world.api.getStatus()).warnings.join('\n');
    expect(warnings).toContain(`Countersign is in safe mode: ${world.dataDir} can be written by any user (mode 0777). Fix: chmod go-w '${world.dataDir}'`);
    expect(await world.api.listUnsealed()).toEqual([]); // not a list of everything: the folder is the problem
    const view = await viewOf(world.call, 'notes');
    expect([view.trusted, view.launch.approved]).toEqual([false, false]);
    // The trusted server's read-only tool now asks.
    const call = client.callTool({ name: 'read_notes', arguments: {} });
    const pending = await world.waitForPending();
    await world.api.decide(pending.id, { kind: 'deny' });
    await call;
    expect(server.calls.list).toHaveLength(1);
    // No new session starts, and no grant can be saved from this state.
    await expect(world.connect('notes')).rejects.toThrow(/will not start 'notes'\. Countersign is in safe mode/);
    await expect(world.api.setTrust('notes', true, await seenOf(world.call, 'notes'))).rejects.toThrow(/Nothing was saved\. Countersign is in safe mode/);

    chmodSync(world.dataDir, 0o700);
    world.broker.seal.recheck();
    expect((await world.api.getStatus()).warnings.join('\n')).not.toContain('safe mode');
    expect((await viewOf(world.call, 'notes')).trusted).toBe(true);
    await client.callTool({ name: 'read_notes', arguments: {} });
    expect(server.calls.list).toHaveLength(2);
  });

  it('a symlinked settings.json or a group-writable trust.json: the CLI says safe mode and the exact fix', async () => {
    const dir = makeDataDir();
    const elsewhere = makeDataDir();
    dirs.push(dir, elsewhere);
    configure(dir, { mem: { command: NODE, args: [MEMORY_SERVER] } }, ['mem']);
    renameSync(join(dir, 'settings.json'), join(elsewhere, 'settings.json'));
    symlinkSync(join(elsewhere, 'settings.json'), join(dir, 'settings.json'));
    chmodSync(join(dir, 'trust.json'), 0o620);
    const listed = await cs(dir, 'servers', 'list');
    const file = join(dir, 'settings.json');
    expect(listed.stderr).toContain(`countersign: Countersign is in safe mode: ${file} is a symbolic link`);
    expect(listed.stderr).toContain(`Fix: cp "$(readlink -f '${file}')" '${file}'.real && mv '${file}'.real '${file}'`);
    expect(listed.stderr).toContain(`${join(dir, 'trust.json')} can be written by its group (mode 0620). Fix: chmod go-w '${join(dir, 'trust.json')}'`);
    const approve = await grantCli(dir, 'approve', 'mem');
    expect(approve.code).not.toBe(0);
    expect(approve.stderr).toMatch(/Nothing was saved\. Countersign is in safe mode/);

    // Running the fixes it printed ends safe mode: the grants made before are in effect again.
    await run('sh', ['-c', `cp "$(readlink -f '${file}')" '${file}'.real && mv '${file}'.real '${file}' && chmod go-w '${join(dir, 'trust.json')}'`]);
    const after = await cs(dir, 'servers', 'list');
    expect(after.stderr).not.toContain('safe mode');
    expect(after.stdout).toMatch(/mem/);
    expect(after.stdout).toMatch(/trusted/);
  }, 120_000); // four CLI runs, each a fresh process: slow on a loaded machine
});

describe('leftovers of crashes', () => {
  it('recovers a broker.lock whose pid is alive but an unrelated process (the real CLI starts)', async () => {
    const dir = makeDataDir();
    dirs.push(dir);
    const unrelated = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => unrelated.once('spawn', resolve));
      writeFileSync(join(dir, 'broker.lock'), JSON.stringify({ pid: unrelated.pid, startedAt: new Date(Date.now() - 3_600_000).toISOString() }));
      const added = await cs(dir, 'servers', 'add', 'mem', '--', NODE, MEMORY_SERVER);
      expect(added.stderr).not.toMatch(/already running/);
      expect(added.code).toBe(0);
      expect(existsSync(join(dir, 'broker.lock'))).toBe(false); // released by the CLI's core when done
    } finally {
      unrelated.kill();
    }
  }, 60_000);

  it("removes temp files of writes killed with SIGKILL at start, and keeps a live writer's", async () => {
    const dir = makeDataDir();
    dirs.push(dir);
    mkdirSync(dir, { recursive: true });
    // A real writer, killed midway: its temp file is left behind.
    const writer = spawn(
      NODE,
      ['-e', `require('fs').writeFileSync(${JSON.stringify(dir)} + '/settings.json.' + process.pid + '.0badf00d.tmp', '{"half'); setInterval(() => {}, 1000)`],
      { stdio: 'ignore' },
    );
    const killedTmp = await new Promise<string>((resolve, reject) => {
      const end = Date.now() + 10_000;
      const look = () => {
        const found = readdirSync(dir).find((n) => n.endsWith('.0badf00d.tmp'));
        if (found) return resolve(found);
        if (Date.now() > end) return reject(new Error('the writer wrote nothing'));
        setTimeout(look, 20);
      };
      look();
    });
    writer.kill('SIGKILL');
    await new Promise((resolve) => writer.once('exit', resolve));
    const live = `trust.json.${process.pid}.cafef00d.tmp`;
    writeFileSync(join(dir, live), 'being written');
    writeFileSync(join(dir, 'notes.tmp'), 'not one of ours');
    const broker = new Broker({ dataDir: dir });
    try {
      const names = readdirSync(dir);
      expect(names).not.toContain(killedTmp);
      expect(names).toContain(live);
      expect(names).toContain('notes.tmp');
    } finally {
      await broker.close();
    }
  });
});
