// State a file edit cannot forge: trust, launch consent and rules written into Countersign's files by
// hand (as an agent with a file tool could) have no effect until the person confirms them; removing
// them applies at once; an older sealed copy cannot be put back. Real files, the real broker core,
// real SDK servers in-process.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UnsealedGrant } from '../../shared/api.js';
import { SEALED_FILE } from '../../electron/broker/store/grant-seal.js';
import { vaultId } from '../../electron/broker/store/key-vault.js';
import { seenOf, viewOf } from '../helpers/consent.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

let world: InProcess;
beforeEach(async () => {
  world = await startInProcess();
});
afterEach(async () => {
  await world.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An edit by hand, then the wait after which the broker has seen it (files are re-checked every 50 ms). */
async function edit(file: string, change: (data: Record<string, any>) => void): Promise<void> {
  const data = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { version: 1, servers: {} }) as Record<string, any>;
  change(data);
  writeFileSync(file, JSON.stringify(data));
  await sleep(120);
}

const settingsFile = () => join(world.dataDir, 'settings.json');
const trustFile = () => join(world.dataDir, 'trust.json');

/** Calls the tool; true when it ran without anyone asked, false when it asked (and is denied here). */
async function runsUnasked(client: Awaited<ReturnType<InProcess['connect']>>, tool: string): Promise<boolean> {
  const before = world.broker.pending.list().length;
  const call = client.callTool({ name: tool, arguments: { text: 'x' } }) as Promise<{ isError?: boolean }>;
  const raced = await Promise.race([call.then(() => 'ran' as const), world.waitForPending(undefined, 3000).then(() => 'asked' as const)]);
  if (raced === 'asked') {
    const pending = world.broker.pending.list();
    expect(pending.length).toBe(before + 1);
    await world.api.decide(pending.at(-1)!.id, { kind: 'deny' });
    expect((await call).isError).toBe(true);
    return false;
  }
  return true;
}

describe('sealed grants: a hand edit does not trust, launch or allow', () => {
  it('"trusted": {"x": true} written by hand gives no trust: a readOnly-claiming tool still asks, until the person confirms', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'delete_all', { readOnlyHint: true }));
    const client = await world.connect('notes');
    await client.listTools();
    await edit(settingsFile(), (d) => (d.trusted = { notes: true }));

    expect((await viewOf(world.call, 'notes')).trusted).toBe(false);
    expect(await runsUnasked(client, 'delete_all')).toBe(false);
    expect(server.calls.list).toEqual([]);

    const [grant, ...more] = await world.api.listUnsealed();
    expect(more).toEqual([]);
    expect(grant).toMatchObject({ kind: 'trust', server: 'notes', hash: (await viewOf(world.call, 'notes')).launch.hash });
    expect((await world.api.getStatus()).warnings.join('\n')).toMatch(
      /1 grant written outside Countersign has no effect until you confirm it.*trust of 'notes'/,
    );

    // Confirming names what was shown: a hash for another command is refused.
    await expect(world.api.confirmUnsealed({ kind: 'trust', server: 'notes', hash: 'a'.repeat(64) })).rejects.toThrow(
      /changed after it was shown to you, so nothing was confirmed/,
    );
    await world.as('desktop').confirmUnsealed({ kind: grant!.kind, server: grant!.server, hash: grant!.hash });
    expect((await viewOf(world.call, 'notes')).trusted).toBe(true);
    expect(await world.api.listUnsealed()).toEqual([]);
    expect(await runsUnasked(client, 'delete_all')).toBe(true);
    expect(server.calls.list).toHaveLength(1);
    const log = await world.log({ server: 'notes' });
    expect(log.filter((e) => e.kind === 'trust').map((e) => [e.actor, e.detail])).toEqual([['desktop', 'server trusted']]);

    // Removing trust by hand applies at once; writing it back by hand later does not revive it.
    await edit(settingsFile(), (d) => (d.trusted = {}));
    expect(await runsUnasked(client, 'delete_all')).toBe(false);
    await edit(settingsFile(), (d) => (d.trusted = { notes: true }));
    expect(await runsUnasked(client, 'delete_all')).toBe(false);
    expect((await world.api.listUnsealed()).map((g) => g.kind)).toEqual(['trust']);
    expect(server.calls.list).toHaveLength(1);
  });

  it("a hand edit of a trusted server's command drops its trust: trust was given to the command shown", async () => {
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'delete_all', { readOnlyHint: true }), { trusted: true });
    expect((await viewOf(world.call, 'notes')).trusted).toBe(true);
    await edit(settingsFile(), (d) => d.servers.notes.args.push('--other'));
    const view = await viewOf(world.call, 'notes');
    expect(view.trusted).toBe(false);
    expect(view.launch.approved).toBe(false);
    // Putting the old command back does not bring trust back either: it was withdrawn when seen.
    await edit(settingsFile(), (d) => d.servers.notes.args.pop());
    expect((await viewOf(world.call, 'notes')).trusted).toBe(false);
  });

  it('a launch hash written into trust.json is no consent: the server does not start until confirmed', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { consent: false });
    const shown = await viewOf(world.call, 'notes');
    expect(shown.status).toBe('needs-consent');
    await edit(
      trustFile(),
      (d) => (d.servers.notes = { ...(d.servers.notes ?? {}), launch: { hash: shown.launch.hash, approvedAt: new Date().toISOString(), by: 'person' } }),
    );
    await expect(world.connect('notes')).rejects.toThrow(/has not started 'notes'.*waits for your approval/);
    expect(server.live).toEqual([]);
    const view = await viewOf(world.call, 'notes');
    expect(view.launch.approved).toBe(false);
    const grants = await world.api.listUnsealed();
    expect(grants.map((g) => [g.kind, g.server, g.hash])).toEqual([['launch', 'notes', shown.launch.hash]]);
    expect(grants[0]!.launch?.commandLine).toEqual(['in-process', 'notes']);

    await world.as('cli').confirmUnsealed({ kind: 'launch', server: 'notes', hash: shown.launch.hash });
    const client = await world.connect('notes');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read_notes']);
    const log = await world.log({ server: 'notes' });
    expect(log.filter((e) => e.kind === 'launch').map((e) => [e.actor, e.detail])).toEqual([
      ['countersign', 'launch refused: its command line is new or changed; it waits for your approval'],
      ['cli', 'command line approved'],
    ]);
  });

  it('an "always allow" rule written by hand does not allow; it can be discarded or confirmed', async () => {
    // Rules apply to trusted servers only: this one is trusted, through Countersign.
    const server = await world.serve(
      'notes',
      (s, calls) => {
        recordingTool(s, calls, 'write_notes', { readOnlyHint: false });
        recordingTool(s, calls, 'erase_notes', { readOnlyHint: false, destructiveHint: true });
      },
      { trusted: true },
    );
    const client = await world.connect('notes');
    await client.listTools();
    const rule = (tool: string) => ({ id: `hand-${tool}`, server: 'notes', tool, action: 'allow', createdAt: new Date().toISOString() });
    await edit(settingsFile(), (d) => (d.rules = [rule('write_notes'), rule('erase_notes')]));
    expect(await world.api.listRules()).toEqual([]);
    expect(await runsUnasked(client, 'write_notes')).toBe(false);
    const grants = await world.api.listUnsealed();
    expect(grants.map((g) => [g.kind, g.tool])).toEqual([
      ['rule', 'write_notes'],
      ['rule', 'erase_notes'],
    ]);

    const byTool = (tool: string) => grants.find((g) => g.tool === tool)!;
    const ref = (g: UnsealedGrant) => ({ kind: g.kind, server: g.server, hash: g.hash, ruleId: g.ruleId });
    await world.api.discardUnsealed(ref(byTool('erase_notes')));
    expect((JSON.parse(readFileSync(settingsFile(), 'utf8')) as { rules: Array<{ tool: string }> }).rules.map((r) => r.tool)).toEqual(['write_notes']);
    await world.api.confirmUnsealed(ref(byTool('write_notes')));
    expect((await world.api.listRules()).map((r) => r.tool)).toEqual(['write_notes']);
    expect(await runsUnasked(client, 'write_notes')).toBe(true);
    expect(server.calls.list.map((c) => c.tool)).toEqual(['write_notes']);
    const log = await world.log({ server: 'notes' });
    expect(log.filter((e) => e.kind === 'rule').map((e) => [e.tool, e.detail, e.decision])).toEqual([
      ['erase_notes', 'hand-written rule discarded', 'deny'],
      ['write_notes', 'hand-written rule confirmed: always allow', 'allow'],
    ]);

    // Editing a sealed rule (any field) makes it a rule the person did not save.
    await edit(settingsFile(), (d) => (d.rules[0].tool = 'erase_notes'));
    expect(await world.api.listRules()).toEqual([]);
  });

  it('an older sealed copy put back (replay) and a forged seal are refused, with a warning', async () => {
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'delete_all', { readOnlyHint: true }), { trusted: true });
    const sealed = join(world.dataDir, SEALED_FILE);
    copyFileSync(sealed, `${sealed}.old`);
    copyFileSync(settingsFile(), `${settingsFile()}.old`);
    await world.api.setTrust('notes', false);
    expect((await viewOf(world.call, 'notes')).trusted).toBe(false);
    // The agent restores both files as they were when the server was trusted.
    copyFileSync(`${sealed}.old`, sealed);
    copyFileSync(`${settingsFile()}.old`, settingsFile());
    await sleep(120);
    expect((await viewOf(world.call, 'notes')).trusted).toBe(false);
    expect((await viewOf(world.call, 'notes')).launch.approved).toBe(false);
    expect((await world.api.getStatus()).warnings.join('\n')).toMatch(
      /sealed grants .* are not valid: it is generation \d+, but the last one Countersign sealed is \d+ \(an older copy was put back\)/,
    );

    // A seal made up without the key.
    await edit(sealed, (d) => {
      d.generation += 1;
      d.grants.trust.notes = d.grants.launch.notes as string;
    });
    expect((await viewOf(world.call, 'notes')).trusted).toBe(false);
    expect((await world.api.getStatus()).warnings.join('\n')).toMatch(/its seal does not match/);

    // The person confirms what they see: trust and the command are theirs again.
    for (const g of await world.api.listUnsealed()) await world.api.confirmUnsealed({ kind: g.kind, server: g.server, hash: g.hash });
    const view = await viewOf(world.call, 'notes');
    expect([view.trusted, view.launch.approved]).toEqual([true, true]);
  });

  it('keeps the key outside the data dir, and a tool call naming the key file is a protected path', async () => {
    const keyFile = join(process.env.COUNTERSIGN_KEY_DIR!, `${vaultId(world.dataDir)}.key.json`);
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { trusted: true });
    expect(existsSync(keyFile)).toBe(true);
    expect(readFileSync(join(world.dataDir, SEALED_FILE), 'utf8')).not.toContain(JSON.parse(readFileSync(keyFile, 'utf8')).key);
    expect(world.broker.protectedPaths().map((p) => p.path)).toContain(keyFile);
    // A trusted server's read-only tool asks when it names the key.
    await world.api.setTrust('notes', true, await seenOf(world.call, 'notes'));
    const client = await world.connect('notes');
    await client.listTools();
    const call = client.callTool({ name: 'read_notes', arguments: { path: keyFile } });
    const pending = await world.waitForPending();
    expect(pending.findings.map((f) => f.code)).toContain('protected-path');
    await world.api.decide(pending.id, { kind: 'deny' });
    await call;
  });
});
