// A team-policy pre-approval is bound to limits (issue 12's gap): an entry covers its command only with
// the limits it states, or, stating none, with the limits of the last approved launch (sealed). An agent
// that strips limits from settings.json gets a server that waits for the person, not one that runs
// unlimited. Real broker core, real files, the real API, SDK servers in-process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/api.js';
import type { LimitsProfile } from '../../shared/limits.js';
import { makeDataDir, removeDir } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { approveShown, viewOf } from '../helpers/consent.js';
import { FILESYSTEM_SERVER, NODE } from '../helpers/paths.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

let world: InProcess | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const SCOPED: LimitsProfile = { network: 'none', filesystem: { read: ['/srv/notes'], write: [] }, passEnv: [] };
const NARROWER: LimitsProfile = { network: 'none', filesystem: { read: [], write: [] }, passEnv: [] };

async function withPolicy(entry: Record<string, unknown>): Promise<InProcess> {
  const policy = join(tmpdir(), `cs-policy-limits-${process.pid}-${Date.now()}.json`);
  writeFileSync(policy, JSON.stringify({ version: 1, servers: { notes: { command: ['in-process', 'notes'], ...entry } } }));
  world = await startInProcess({ env: { ...process.env, COUNTERSIGN_HOME: '', COUNTERSIGN_POLICY: policy } });
  return world;
}

/** An agent with a filesystem tool: edits the server's entry in settings.json directly. */
function editByHand(w: InProcess, limits: LimitsProfile | undefined): void {
  const file = join(w.dataDir, 'settings.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  if (limits) data.servers.notes.limits = limits;
  else delete data.servers.notes.limits;
  writeFileSync(file, JSON.stringify(data));
}

const settle = () => new Promise((r) => setTimeout(r, 80)); // the settings file is re-checked every 50 ms
const startError = (w: InProcess) => w.connect('notes').then(() => undefined, (e: Error) => e.message);
const launchOf = async (w: InProcess) => (await viewOf(w.call, 'notes')).launch as ServerView['launch'];

describe('team policy pre-approval bound to limits', () => {
  it('an entry without limits covers only the limits last approved: stripped by hand, the server waits for the person', async () => {
    const w = await withPolicy({});
    const server = await w.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }));
    // The person approved it, then tightened its limits (the approval carries over, and so does the baseline).
    await w.api.setLimits('notes', SCOPED);
    expect(await launchOf(w)).toMatchObject({ approved: true, approvedBy: 'person' });

    editByHand(w, undefined);
    await settle();
    expect(await startError(w)).toMatch(/has not started 'notes'.*not looser limits than last approved \(no network · read-only \/srv\/notes\); it is set to run with no limits/);
    expect(server.live).toEqual([]);
    expect(await launchOf(w)).toMatchObject({ approved: false });

    // Tighter than approved, by hand: the policy covers it (taking away needs no one).
    editByHand(w, NARROWER);
    await settle();
    const client = await w.connect('notes');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read_notes']);
    expect(await launchOf(w)).toMatchObject({ approved: true, approvedBy: 'policy' });
    const entries = await w.log({ server: 'notes' });
    expect(entries.filter((e) => e.kind === 'launch').map((e) => [e.actor, e.detail])).toContainEqual(['policy', 'command approved by the team policy']);

    // Looser than the narrower baseline now sealed, even the person's first limits: asks again.
    editByHand(w, SCOPED);
    await settle();
    expect(await startError(w)).toMatch(/not looser limits than last approved \(no network · no files\)/);
    // The person approves what is shown: it runs, and that becomes the baseline.
    editByHand(w, undefined);
    await settle();
    await approveShown(w.call, 'notes');
    await w.connect('notes');
    expect(await launchOf(w)).toMatchObject({ approved: true, approvedBy: 'person' });
  });

  it('an entry that states limits covers the command only with those or tighter', async () => {
    const w = await withPolicy({ limits: SCOPED });
    const server = await w.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { consent: false });
    // Added without limits: looser than the policy's, so the person decides.
    expect(await startError(w)).toMatch(/the team policy approves it only with these limits: no network · read-only \/srv\/notes; it is set to run with no limits/);
    expect(server.live).toEqual([]);

    await w.api.setLimits('notes', NARROWER);
    await w.connect('notes');
    expect(await launchOf(w)).toMatchObject({ approved: true, approvedBy: 'policy' });

    // Loosened through the API without consent (network on): not covered, waits for the person.
    await w.api.setLimits('notes', { ...NARROWER, network: 'unrestricted' });
    expect(await startError(w)).toMatch(/approves it only with these limits/);
    // The entry's own limits exactly: covered.
    await w.api.setLimits('notes', SCOPED);
    await w.connect('notes');
    expect(await launchOf(w)).toMatchObject({ approved: true, approvedBy: 'policy' });
  });

  it('with the sealed records gone, nothing is assumed: an entry without limits does not cover stripped limits', async () => {
    const w = await withPolicy({});
    await w.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }));
    await w.api.setLimits('notes', SCOPED);
    // The agent deletes the sealed file (erasing the baseline with it) and strips the limits.
    rmSync(join(w.dataDir, 'grants.sealed.json'));
    editByHand(w, undefined);
    await settle();
    expect(await startError(w)).toMatch(/sealed records are missing, so the limits you approved for it are not known/);
  });

  it('a first launch with no baseline: the entry covers the limits it has, and they become the baseline', async () => {
    const w = await withPolicy({});
    const server = await w.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { consent: false });
    await w.api.setLimits('notes', SCOPED); // never approved: nothing to carry, no baseline yet
    expect(await launchOf(w)).toMatchObject({ approved: false });
    await w.connect('notes');
    expect(server.live).toHaveLength(1);
    expect(await launchOf(w)).toMatchObject({ approved: true, approvedBy: 'policy' });
    editByHand(w, undefined);
    await settle();
    expect(await startError(w)).toMatch(/not looser limits than last approved \(no network · read-only \/srv\/notes\)/);
  });
});

describe('team policy pre-approval bound to limits, through the real CLI', () => {
  it('limits stripped from settings.json by hand: the policy does not start the server, the person is asked', { timeout: 120_000 }, async () => {
    const dir = makeDataDir();
    const project = mkdtempSync(join(tmpdir(), 'cs-policy-cli-'));
    const policy = join(project, '..', `${project.split('/').pop()}-policy.json`);
    writeFileSync(policy, JSON.stringify({ version: 1, servers: { files: { command: [NODE, FILESYSTEM_SERVER, project] } } }));
    process.env.COUNTERSIGN_POLICY = policy;
    try {
      const added = await runCli(dir, 'servers', 'add', 'files', '--no-network', '--read-only', project, '--', NODE, FILESYSTEM_SERVER, project);
      expect(added.code, added.stderr).toBe(0);
      expect((await runCli(dir, 'servers', 'approve', 'files', '--yes')).code).toBe(0);
      const file = join(dir, 'settings.json');
      const data = JSON.parse(readFileSync(file, 'utf8'));
      delete data.servers.files.limits;
      writeFileSync(file, JSON.stringify(data));
      // Pinning starts the server to learn what it is: here the policy may not start it unlimited.
      const pinned = await runCli(dir, 'servers', 'pin', 'files', '--yes');
      expect(pinned.code).not.toBe(0);
      expect(pinned.stderr).toMatch(/has not started 'files'.*not looser limits than last approved \(no network · read-only .*\); it is set to run with no limits/s);
      const view = JSON.parse((await runCli(dir, 'servers', 'show', 'files', '--json')).stdout) as ServerView;
      expect(view.launch).toMatchObject({ approved: false });
      expect(view.pin).toBeUndefined();
    } finally {
      delete process.env.COUNTERSIGN_POLICY;
      removeDir(dir);
      rmSync(project, { recursive: true, force: true });
      rmSync(policy, { force: true });
    }
  });
});
