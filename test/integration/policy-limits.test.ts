// A user policy's server entry holds a server to what the team reviewed and never stands in for the
// person (issue 21, point 5): a launch of another command, or with looser limits than the entry's, is
// refused even with the person's consent (and calls on a running session stop); a launch that matches
// still waits for the person; limits stripped from settings.json by hand wait for the person. Real
// broker core, real files, the real API, SDK servers in-process; the real CLI with server-filesystem.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, ServerView } from '../../shared/api.js';
import type { LimitsProfile } from '../../shared/limits.js';
import { pollUntil } from '../helpers/patience.js';
import { makeDataDir, removeDir } from '../helpers/broker-harness.js';
import { grantCli, runCli } from '../helpers/cli-run.js';
import { approveShown, viewOf } from '../helpers/consent.js';
import { FILESYSTEM_SERVER, NODE } from '../helpers/paths.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

let world: InProcess | undefined;
let policy = '';
afterEach(async () => {
  await world?.close();
  world = undefined;
  rmSync(policy, { force: true });
});

const SCOPED: LimitsProfile = { network: 'none', filesystem: { read: ['/srv/notes'], write: [] }, passEnv: [] };
const NARROWER: LimitsProfile = { network: 'none', filesystem: { read: [], write: [] }, passEnv: [] };

function writePolicy(entry: Record<string, unknown>): void {
  writeFileSync(`${policy}.tmp`, JSON.stringify({ version: 1, servers: { notes: entry } }));
  renameSync(`${policy}.tmp`, policy);
}

async function withPolicy(entry: Record<string, unknown>): Promise<InProcess> {
  policy = join(tmpdir(), `cs-policy-limits-${process.pid}-${Date.now()}.json`);
  writePolicy(entry);
  world = await startInProcess({ env: { ...process.env, COUNTERSIGN_HOME: '', COUNTERSIGN_POLICY: policy } });
  return world;
}

/** An agent with a filesystem tool: edits the server's entry in settings.json directly. */
function editByHand(w: InProcess, limits: LimitsProfile | undefined): void {
  const file = join(w.dataDir, 'settings.json');
  const data = JSON.parse(readFileSync(file, 'utf8'));
  if (limits) data.servers.notes.limits = limits;
  else delete data.servers.notes.limits;
  writeFileSync(`${file}.tmp`, JSON.stringify(data), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

const startError = (w: InProcess) =>
  w.connect('notes').then(
    () => undefined,
    (e: Error) => e.message,
  );
const viewNow = (w: InProcess) => viewOf(w.call, 'notes');
/** Files are re-checked on a throttle: wait for the view to say what the test wrote. */
function until(w: InProcess, ok: (v: ServerView) => boolean): Promise<ServerView> {
  return pollUntil(() => viewNow(w), ok, 'the view');
}
const notes = (s: Parameters<typeof recordingTool>[0], calls: Parameters<typeof recordingTool>[1]) =>
  void recordingTool(s, calls, 'read_notes', { readOnlyHint: true });

describe('a user policy entry adds friction only', () => {
  it('the exact command it names still waits for the person; once approved, it runs', async () => {
    const w = await withPolicy({ command: ['in-process', 'notes'] });
    const server = await w.serve('notes', notes, { consent: false });
    expect(await startError(w)).toMatch(/has not started 'notes'.*waits for your approval/s);
    expect(server.live).toEqual([]);
    expect((await viewNow(w)).launch).toMatchObject({ approved: false });
    expect((await w.log({ server: 'notes' })).filter((e) => e.kind === 'launch' && e.decision !== 'deny')).toEqual([]);
    await approveShown(w.call, 'notes');
    await w.connect('notes');
    expect(server.live).toHaveLength(1);
    expect((await viewNow(w)).launch).toMatchObject({ approved: true, approvedBy: 'person' });
  });

  it("another command is refused even with the person's consent, and calls of a running session stop", async () => {
    const w = await withPolicy({});
    const server = await w.serve('notes', notes, { trusted: true });
    const client = await w.connect('notes');
    expect((await client.callTool({ name: 'read_notes', arguments: { path: 'a' } })).isError).toBeFalsy();

    writePolicy({ command: ['in-process', 'reviewed-notes'] });
    const view = await until(w, (v) => v.status === 'blocked');
    expect(view.blockedBy).toMatch(/allows 'notes' only as in-process reviewed-notes; it is set to run in-process notes/);
    expect(view.launch.approved).toBe(true); // the person's consent stands, the policy holds it back
    const refused = await client.callTool({ name: 'read_notes', arguments: { path: 'b' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/allows 'notes' only as in-process reviewed-notes/);
    expect(server.calls.list.map((c) => (c.args as { path: string }).path)).toEqual(['a']);
    expect(await startError(w)).toMatch(/will not start 'notes': the team policy .* allows 'notes' only as/);
  });

  it("limits looser than the entry's are refused even with consent; the same or tighter run once the person approves", async () => {
    const w = await withPolicy({ limits: SCOPED });
    const server = await w.serve('notes', notes); // approved by the person, with no limits
    expect(await startError(w)).toMatch(
      /allows 'notes' only with these limits or tighter: no network · read-only \/srv\/notes; it is set to run with no limits/,
    );
    expect(server.live).toEqual([]);
    expect((await viewNow(w)).status).toBe('blocked');

    await w.api.setLimits('notes', NARROWER); // tighter takes away: the approval carries over
    await w.connect('notes');
    expect(server.live).toHaveLength(1);
    // Loosened with the person's consent, past what the team reviewed: still refused.
    await w.api.setLimits('notes', { ...NARROWER, network: 'unrestricted' }, (await viewNow(w)).launch.hash);
    expect((await viewNow(w)).launch.approved).toBe(true);
    expect(await startError(w)).toMatch(/only with these limits or tighter/);
  });

  it('limits stripped from settings.json by hand wait for the person; the entry approves nothing', async () => {
    const w = await withPolicy({ command: ['in-process', 'notes'] });
    const server = await w.serve('notes', notes);
    await w.api.setLimits('notes', SCOPED);
    expect((await viewNow(w)).launch).toMatchObject({ approved: true, approvedBy: 'person' });
    editByHand(w, undefined);
    await until(w, (v) => v.launch.limits === undefined);
    expect(await startError(w)).toMatch(/has not started 'notes': its command line is new or changed, and waits for your approval/);
    expect(server.live).toEqual([]);
    // Tighter than approved, by hand: a new command line all the same, so the person decides.
    editByHand(w, NARROWER);
    await until(w, (v) => v.launch.limits?.filesystem !== 'host' && v.launch.limits !== undefined);
    expect(await startError(w)).toMatch(/waits for your approval/);
    const log: AuditEntry[] = await w.log({ server: 'notes' });
    expect(log.filter((e) => e.actor === 'policy')).toEqual([]);
  });
});

describe('a user policy pin', () => {
  it("is checked beside the person's pin, never instead of it", async () => {
    let tool = 'read_notes';
    const w = await withPolicy({ pin: { version: '1.0.0' } }); // what the in-process server reports
    await w.serve('notes', (s, calls) => void recordingTool(s, calls, tool, { readOnlyHint: true }));
    const first = await w.connect('notes');
    await first.listTools();
    await w.api.pinServer('notes', { launchHash: (await viewNow(w)).launch.hash, listingHash: (await viewNow(w)).listingHash });
    await first.close();
    // The server comes back with other tools: the person's definitions pin holds, whatever the policy pins.
    tool = 'read_everything';
    const again = await w.connect('notes');
    await again.listTools();
    const view = await until(w, (v) => (v.quarantine?.length ?? 0) > 0);
    expect(view.quarantine).toEqual(['its tool definitions differ from the pinned ones']);
  });
});

describe('a user policy entry, through the real CLI', () => {
  it('limits stripped from settings.json by hand: the policy does not start the server, the person is asked', { timeout: 120_000 }, async () => {
    const dir = makeDataDir();
    const project = mkdtempSync(join(tmpdir(), 'cs-policy-cli-'));
    policy = join(project, '..', `${project.split('/').pop()}-policy.json`);
    writeFileSync(policy, JSON.stringify({ version: 1, servers: { files: { command: [NODE, FILESYSTEM_SERVER, project] } } }));
    process.env.COUNTERSIGN_POLICY = policy;
    try {
      const added = await runCli(dir, 'servers', 'add', 'files', '--no-network', '--read-only', project, '--', NODE, FILESYSTEM_SERVER, project);
      expect(added.code, added.stderr).toBe(0);
      expect((await grantCli(dir, 'approve', 'files')).code).toBe(0);
      const file = join(dir, 'settings.json');
      const data = JSON.parse(readFileSync(file, 'utf8'));
      delete data.servers.files.limits;
      writeFileSync(file, JSON.stringify(data));
      // Pinning starts the server to learn what it is: the policy's entry does not let it start unlimited.
      const pinned = await grantCli(dir, 'pin', 'files');
      expect(pinned.code).not.toBe(0);
      expect(pinned.stderr).toMatch(/has not started 'files': its command line is new or changed, and waits for your approval/);
      const view = JSON.parse((await runCli(dir, 'servers', 'show', 'files', '--json')).stdout) as ServerView;
      expect(view.launch).toMatchObject({ approved: false });
      expect(view.pin).toBeUndefined();
    } finally {
      delete process.env.COUNTERSIGN_POLICY;
      removeDir(dir);
      rmSync(project, { recursive: true, force: true });
    }
  });
});
