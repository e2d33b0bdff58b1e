// The organization's managed policy through the real broker core and API (SDK servers in-process): it
// counts only from a root-owned place, outranks the team policy and the person's settings (deny, block,
// always-allow rules, inline approval, the approval timeout, pins, pre-approval), fails closed when
// broken, and shows in getStatus and each server's marks.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PendingCall } from '../../shared/api.js';
import { managedFolder, NOBODY, type ManagedFolder } from '../helpers/managed-folder.js';
import { pollUntil } from '../helpers/patience.js';
import { viewOf } from '../helpers/consent.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';

let world: InProcess | undefined;
let m: ManagedFolder | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  m?.remove();
  m = undefined;
});

const ORG = 'your organization’s managed policy';
type ToolResult = { content: Array<{ text?: string }>; isError?: boolean };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** Replaces the managed file as an administrator's deployment would (atomic, root-owned 0644). */
function deploy(file: string, policy: unknown): void {
  writeFileSync(`${file}.tmp`, typeof policy === 'string' ? policy : JSON.stringify(policy), { mode: 0o644 });
  renameSync(`${file}.tmp`, file);
}

async function withManaged(policy: unknown, env: NodeJS.ProcessEnv = {}): Promise<{ w: InProcess; file: string }> {
  m = managedFolder();
  const file = join(m.dir, 'managed-policy.json');
  if (policy !== undefined) deploy(file, policy);
  world = await startInProcess({ managedPolicyPath: file, env: { ...process.env, COUNTERSIGN_HOME: '', ...env } });
  return { w: world, file };
}

const startError = (w: InProcess, name: string) =>
  w.connect(name).then(
    () => undefined,
    (e: Error) => e.message,
  );

const notesTools = (server: Parameters<typeof recordingTool>[0], calls: Parameters<typeof recordingTool>[1]) => {
  recordingTool(server, calls, 'write_note', {});
  recordingTool(server, calls, 'read_note', { readOnlyHint: true });
};

describe('managed policy', () => {
  it('denies by name, package or command: the server never starts, a running one has its calls refused, and the reason shows', async () => {
    const { w, file } = await withManaged({ version: 1 });
    const evil = await w.serve('evil-notes', notesTools);
    const ok = await w.serve('notes', notesTools, { trusted: true });
    const client = await w.connect('notes');
    deploy(file, {
      version: 1,
      restrictions: {
        deny: [
          { name: 'evil-*', reason: 'reviewed and refused' },
          { command: 'in-process notes', reason: 'retired' },
        ],
      },
    });
    const refused = await pollUntil(
      () => client.callTool({ name: 'read_note', arguments: { text: 'x' } }),
      (r) => (r as ToolResult).isError === true,
      'the running server refused',
    );
    expect(text(refused)).toContain(`Countersign refused this call: ${ORG} denies 'notes': its command matches 'in-process notes' (retired)`);
    const reached = ok.calls.list.length;
    expect((await client.callTool({ name: 'read_note', arguments: { text: 'y' } })).isError).toBe(true);
    expect(ok.calls.list).toHaveLength(reached);
    expect(await startError(w, 'evil-notes')).toBe(
      `Countersign will not start 'evil-notes': ${ORG} denies 'evil-notes': its name matches 'evil-*' (reviewed and refused).`,
    );
    expect(evil.calls.list).toEqual([]);
    const view = await viewOf(w.call, 'evil-notes');
    expect(view.status).toBe('blocked');
    expect(view.managed).toEqual([`blocked: ${ORG} denies 'evil-notes': its name matches 'evil-*' (reviewed and refused)`]);
    const status = (await w.api.getStatus()).managed!;
    expect(status).toMatchObject({ state: 'loaded', path: file, from: 'option' });
    expect(status.restrictions).toEqual([
      { key: 'deny', text: 'Servers matching name evil-* may not run.', reason: 'reviewed and refused' },
      { key: 'deny', text: 'Servers matching command in-process notes may not run.', reason: 'retired' },
    ]);
  });

  it('alwaysAllow none: a saved "always allow" rule stops applying, and no new one can be made', async () => {
    const { w, file } = await withManaged(undefined);
    const notes = await w.serve('notes', notesTools, { trusted: true });
    const client = await w.connect('notes');
    const first = client.callTool({ name: 'write_note', arguments: { text: '1' } });
    const asked = await w.waitForPending((c: PendingCall) => c.tool === 'write_note');
    expect(await w.api.decide(asked.id, { kind: 'always-allow' })).toMatchObject({ ok: true });
    await first;
    await client.callTool({ name: 'write_note', arguments: { text: '2' } }); // the rule allows it
    expect(notes.calls.list).toHaveLength(2);

    deploy(file, { version: 1, restrictions: { alwaysAllow: { allowed: 'none', reason: 'every write is reviewed' } } });
    await pollUntil(
      () => w.api.getStatus(),
      (s) => s.managed?.state === 'loaded',
      'the managed policy',
    );
    const third = client.callTool({ name: 'write_note', arguments: { text: '3' } });
    const again = await w.waitForPending((c: PendingCall) => c.tool === 'write_note' && (c.arguments as { text: string }).text === '3');
    const refused = await w.api.decide(again.id, { kind: 'always-allow' });
    expect(refused).toMatchObject({
      ok: false,
      error: 'not-saved',
      message: expect.stringContaining('Your organization\'s managed policy allows no "always allow" rules (every write is reviewed)'),
    });
    expect(await w.api.decide(again.id, { kind: 'deny' })).toMatchObject({ ok: true });
    await third;
    expect(notes.calls.list).toHaveLength(2);
  });

  it('alwaysAllow not-exfiltration: a rule may not cover the exfiltration guard', async () => {
    const { w } = await withManaged({ version: 1, restrictions: { alwaysAllow: { allowed: 'not-exfiltration', reason: 'data stays' } } });
    await w.serve('notes', notesTools, { trusted: true });
    const client = await w.connect('notes');
    const call = client.callTool({ name: 'write_note', arguments: { text: '1' } });
    const asked = await w.waitForPending((c: PendingCall) => c.tool === 'write_note');
    const refused = await w.api.decide(asked.id, {
      kind: 'allow-rule',
      rule: { scope: { kind: 'tool' }, lifetime: { kind: 'always' }, coversExfiltration: true },
    });
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('allows no rule that covers the exfiltration guard (data stays)') });
    expect(await w.api.decide(asked.id, { kind: 'allow-rule', rule: { scope: { kind: 'tool' }, lifetime: { kind: 'always' } } })).toMatchObject({ ok: true });
    await call;
  });

  it('inline approval off and a maximum approval timeout: the person cannot turn it on, and a longer setting is capped and says so', async () => {
    const { w } = await withManaged({
      version: 1,
      restrictions: { inlineApprovalOff: { reason: 'approve in Countersign only' }, maxApprovalTimeout: { seconds: 30, reason: 'agents must not hang' } },
    });
    await expect(w.api.setInlineApproval('claude-code', true)).rejects.toThrow(
      "Your organization's managed policy turns approval inside the MCP client off (approve in Countersign only).",
    );
    await w.api.updateSettings({ approvalTimeoutSeconds: 600 });
    expect(w.broker.effectiveSettings().approvalTimeoutSeconds).toBe(30);
    const r = (await w.api.getStatus()).managed!.restrictions;
    expect(r).toContainEqual({
      key: 'maxApprovalTimeout',
      text: 'A call waits at most 30 s for approval. Your setting of 600 s is capped to 30 s.',
      reason: 'agents must not hang',
      capped: { from: 600, to: 30 },
    });
    expect(r).toContainEqual({ key: 'inlineApprovalOff', text: 'Approval inside the MCP client is off.', reason: 'approve in Countersign only' });
    await w.api.updateSettings({ approvalTimeoutSeconds: 10 });
    expect(w.broker.effectiveSettings().approvalTimeoutSeconds).toBe(10);
  });

  it('outranks the team policy and the person: a user policy that pre-approves cannot lift a managed block; a managed pin cannot be removed', async () => {
    m = managedFolder();
    const user = m.write('user-policy.json', { version: 1, servers: { notes: { command: ['in-process', 'notes'] } } });
    const file = join(m.dir, 'managed-policy.json');
    deploy(file, { version: 1, block: ['notes'], servers: { pinned: { pin: { version: '1.0.0' } } }, alwaysAsk: [{ server: 'pinned', tool: '*' }] });
    world = await startInProcess({ managedPolicyPath: file, env: { ...process.env, COUNTERSIGN_HOME: '', COUNTERSIGN_POLICY: user } });
    const w = world;
    await w.serve('notes', notesTools, { trusted: true });
    expect(await startError(w, 'notes')).toBe(`Countersign will not start 'notes': ${ORG} blocks 'notes'.`);
    await w.serve('pinned', notesTools, { trusted: true });
    await expect(w.api.unpinServer('pinned')).rejects.toThrow(/pinned by your organization’s managed policy/);
    const view = await viewOf(w.call, 'pinned');
    expect(view.pin).toMatchObject({ version: '1.0.0', by: 'policy', managed: true });
    expect(view.managed).toEqual(['pinned to 1.0.0', 'always asks: *']);
  });

  it("pre-approves the exact command it lists (the person's launch consent is not needed)", async () => {
    const { w } = await withManaged({ version: 1, servers: { notes: { command: ['in-process', 'notes'] } } });
    const notes = await w.serve('notes', notesTools, { trusted: true, consent: false });
    const client = await w.connect('notes');
    const call = client.callTool({ name: 'write_note', arguments: { text: '1' } });
    await w.api.decide((await w.waitForPending()).id, { kind: 'allow-once' });
    await call;
    expect(notes.calls.list).toHaveLength(1);
    const log = await w.log({ server: 'notes' });
    expect(
      log.filter((e) => e.kind === 'launch' && e.actor === 'policy' && JSON.stringify(e).includes('command approved by your organization’s managed policy')),
    ).toHaveLength(1);
  });

  it.each([
    ['invalid JSON', '{"version": 1,', /could not be read \(.*JSON/],
    ['a schema error', { version: 1, restrictions: { deny: [{ name: 'x' }] } }, /could not be read \(restrictions\.deny\.0\.reason: Required\)/],
    ['a directory where the file goes', 'DIR', /could not be read \(EISDIR/],
  ])('fails closed on %s: every server is blocked, with the reason', async (_what, content, why) => {
    m = managedFolder();
    const file = join(m.dir, 'managed-policy.json');
    if (content === 'DIR') m.folder('managed-policy.json');
    else deploy(file, content);
    world = await startInProcess({ managedPolicyPath: file });
    const notes = await world.serve('notes', notesTools, { trusted: true });
    expect(await startError(world, 'notes')).toMatch(why);
    expect(notes.calls.list).toEqual([]);
    expect((await world.api.getStatus()).managed).toMatchObject({ state: 'broken', path: file, error: expect.any(String) });
  });

  it('ignores a managed file another user owns (it could be the agent’s), with the warning and the fix; it decides nothing', async () => {
    m = managedFolder();
    const file = m.write('managed-policy.json', { version: 1, block: ['notes'] }, { uid: NOBODY });
    world = await startInProcess({ managedPolicyPath: file });
    const notes = await world.serve('notes', notesTools, { trusted: true });
    const client = await world.connect('notes');
    expect((await client.callTool({ name: 'read_note', arguments: { text: 'x' } })).isError).toBeFalsy();
    expect(notes.calls.list).toHaveLength(1);
    const status = await world.api.getStatus();
    expect(status.managed).toMatchObject({
      state: 'ignored',
      why: expect.stringContaining('owned by uid 65534'),
      fix: `sudo chown root:root '${file}' && sudo chmod 644 '${file}'`,
    });
    expect(status.warnings.join('\n')).toContain(`The managed policy ${file} is ignored`);
    expect((await viewOf(world.call, 'notes')).status).not.toBe('blocked');
  });
});
