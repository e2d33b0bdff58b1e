// Disk faults never crash and never lie: a read-only data folder (chattr +i as root, chmod otherwise),
// an audit log the disk refuses, a data folder removed under the running broker. Real files, the real
// broker core, real SDK servers in-process.
import { execFileSync } from 'node:child_process';
import { chmodSync, closeSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approveShown, viewOf } from '../helpers/consent.js';
import { PATIENCE_MS, pollUntil } from '../helpers/patience.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';
import { makeUnwritable } from '../helpers/unwritable.js';

let world: InProcess;
const undo: Array<() => void> = [];
beforeEach(async () => {
  world = await startInProcess();
});
afterEach(async () => {
  for (const u of undo.splice(0).reverse()) u();
  await world.close();
});

/** A file that cannot be appended to: immutable as root (chmod does not bind root), read-only otherwise. */
function makeFileUnwritable(file: string): () => void {
  const root = process.getuid?.() === 0;
  if (root) execFileSync('chattr', ['+i', file]);
  else chmodSync(file, 0o444);
  const restore = () => (root ? execFileSync('chattr', ['-i', file]) : chmodSync(file, 0o600));
  try {
    closeSync(openSync(file, 'a'));
  } catch {
    return restore;
  }
  restore();
  throw new Error(`could not make ${file} unwritable`);
}

async function until<T>(find: () => T | undefined): Promise<T> {
  return (await pollUntil(find, (v) => v !== undefined, 'the state looked for')) as T;
}

const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

describe('disk faults', () => {
  it('a read-only data folder: a session to a trusted server whose records are not saved yet runs, and says what was not saved', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { consent: false });
    // Trusted before any listing: its first listing and identity are to be recorded when it first runs.
    await world.api.setTrust('notes', true, { launchHash: (await viewOf(world.call, 'notes')).launch.hash });
    await approveShown(world.call, 'notes');
    undo.push(makeUnwritable(world.dataDir));

    const client = await world.connect('notes');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read_notes']);
    expect(text(await client.callTool({ name: 'read_notes', arguments: {} }))).toBe('ran read_notes');
    expect(server.calls.list).toHaveLength(1);
    const warnings = (await world.api.getStatus()).warnings.join('\n');
    expect(warnings).toMatch(/could not save the tool listing of 'notes': .*(EPERM|EACCES|EROFS)/);
    // The log still took the call (appending to the existing file is not creating one).
    expect((await world.log({ server: 'notes', tool: 'read_notes' })).map((e) => e.status)).toEqual(['ok']);
  });

  it('"always allow" whose rule cannot be saved is not reported as saved: the call still waits', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'write_notes', { readOnlyHint: false }), { trusted: true });
    const client = await world.connect('notes');
    await client.listTools();
    undo.push(makeUnwritable(world.dataDir));
    const call = client.callTool({ name: 'write_notes', arguments: { text: 'x' } });
    const pending = await world.waitForPending();
    const result = await world.api.decide(pending.id, { kind: 'always-allow' });
    expect(result).toMatchObject({ ok: false, error: 'not-saved' });
    expect('message' in result && result.message).toMatch(/could not be saved \(.*(EPERM|EACCES|EROFS).*\), so nothing was decided: the call still waits/);
    expect(world.broker.pending.list().map((c) => c.id)).toEqual([pending.id]);
    expect(server.calls.list).toEqual([]);
    expect(await world.api.listRules()).toEqual([]);
    // The person allows it once instead: it runs, and no rule was claimed.
    expect(await world.api.decide(pending.id, { kind: 'allow-once' })).toMatchObject({ ok: true, forwarded: true });
    expect(text(await call)).toBe('ran write_notes');
    expect((await world.log({ server: 'notes' })).filter((e) => e.kind === 'rule')).toEqual([]);
  });

  it('"always allow" answers from the real save: settings.json refusing the write in a writable folder leaves the call waiting', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'write_notes', { readOnlyHint: false }), { trusted: true });
    const client = await world.connect('notes');
    await client.listTools();
    const settingsFile = join(world.dataDir, 'settings.json');
    undo.push(makeFileUnwritable(settingsFile));
    // The folder still takes new files (a write probe there passes): only the save itself can tell.
    writeFileSync(join(world.dataDir, 'probe'), 'x');
    rmSync(join(world.dataDir, 'probe'));
    const before = readFileSync(settingsFile, 'utf8');
    const call = client.callTool({ name: 'write_notes', arguments: { text: 'x' } });
    const pending = await world.waitForPending();
    for (const decision of [{ kind: 'always-allow' }, { kind: 'allow-rule', rule: { scope: { kind: 'tool' }, lifetime: { kind: 'always' } } }] as const) {
      const result = await world.api.decide(pending.id, decision);
      expect(result, decision.kind).toMatchObject({ ok: false, error: 'not-saved' });
      expect('message' in result && result.message).toMatch(/could not be saved \(.*(EPERM|EACCES).*\), so nothing was decided: the call still waits/);
      expect(world.broker.pending.list().map((c) => c.id)).toEqual([pending.id]);
    }
    expect(server.calls.list).toEqual([]); // and still none, below: the call runs once, after the save
    expect(await world.api.listRules()).toEqual([]);
    expect(readFileSync(settingsFile, 'utf8')).toBe(before);
    expect((await world.log({ server: 'notes' })).filter((e) => e.kind === 'rule')).toEqual([]);
    // Writable again: the same answer now saves the rule first, then releases the call.
    undo.pop()!();
    expect(await world.api.decide(pending.id, { kind: 'always-allow' })).toMatchObject({ ok: true, forwarded: true });
    expect(text(await call)).toBe('ran write_notes');
    expect(server.calls.list).toHaveLength(1); // a run released by a refused save would be a second one
    expect((await world.api.listRules()).map((r) => [r.server, r.tool])).toEqual([['notes', 'write_notes']]);
    expect((await world.log({ server: 'notes' })).filter((e) => e.kind === 'rule')).toHaveLength(1);
  });

  it('an audit log the disk refuses: the call that ran is reported unlogged, new calls are refused, and all is written once it is writable', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { trusted: true });
    const client = await world.connect('notes');
    await client.listTools();
    const before = (await world.log()).length;
    const restore = makeFileUnwritable(world.broker.audit.path);
    undo.push(() => {
      try {
        restore();
      } catch {
        // already restored below
      }
    });

    // Allowed before the log failed to take its entry: it ran, but its answer waited for the entry, so the
    // client hears that it ran unlogged instead of its result; the status says so too.
    const ran = (await client.callTool({ name: 'read_notes', arguments: { path: 'a' } })) as { isError?: boolean };
    expect(ran.isError).toBe(true);
    expect(text(ran)).toMatch(/^Countersign ran this call but could not write it to its audit log, so its answer is withheld\./);
    expect(server.calls.list).toHaveLength(1);
    expect(world.broker.auditGuard.warning()).toBeDefined();
    const status = (await world.api.getStatus()).warnings.join('\n');
    expect(status).toMatch(
      /cannot write its audit log .*audit\.jsonl \(.*(EPERM|EACCES).*\).*New calls are refused until it is writable again\. 1 entry is not logged yet \(latest: call 'read_notes' on 'notes', which ran\)/,
    );
    expect(world.events.some((e) => e.type === 'status-changed')).toBe(true);

    // Fail closed: the next call never reaches the server.
    const refused = (await client.callTool({ name: 'read_notes', arguments: { path: 'b' } })) as { isError?: boolean };
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/cannot write its audit log .* It was not run\./);
    expect(server.calls.list).toHaveLength(1);
    await until(() => world.broker.auditGuard.unlogged().length === 2 || undefined);

    restore();
    // Retried every 2 s: both entries land, in order, and the chain is whole.
    const end = Date.now() + PATIENCE_MS;
    while (world.broker.auditGuard.unlogged().length && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    const log = await world.log();
    expect(log.slice(before).map((e) => [e.tool, e.status, (e.arguments as { path?: string }).path])).toEqual([
      ['read_notes', 'ok', 'a'],
      ['read_notes', 'denied', 'b'],
    ]);
    expect(world.broker.audit.verify()).toMatchObject({ ok: true, problems: [] });
    expect((await world.api.getStatus()).warnings.join('\n')).not.toMatch(/audit log/);
    expect(text(await client.callTool({ name: 'read_notes', arguments: { path: 'c' } }))).toBe('ran read_notes');
    expect(server.calls.list).toHaveLength(2);
  });

  it('the data folder removed under the running broker: no crash, nothing trusted, and the log starts again', async () => {
    const server = await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'read_notes', { readOnlyHint: true }), { trusted: true });
    const client = await world.connect('notes');
    await client.listTools();
    rmSync(world.dataDir, { recursive: true, force: true });
    await vi.waitFor(async () => expect(await world.api.listServers()).toEqual([]), { timeout: PATIENCE_MS });
    // Its config and trust are gone with the folder: the open session's call asks the person.
    const call = client.callTool({ name: 'read_notes', arguments: {} }) as Promise<{ isError?: boolean }>;
    const pending = await world.waitForPending();
    expect(pending.serverTrusted).toBe(false);
    await world.api.decide(pending.id, { kind: 'deny' });
    expect((await call).isError).toBe(true);
    expect(server.calls.list).toEqual([]);
    expect((await world.api.getStatus()).version).toBeTruthy();
    expect((await world.log()).length).toBeGreaterThan(0);
    expect(world.broker.audit.verify().ok).toBe(true);
  });
});
