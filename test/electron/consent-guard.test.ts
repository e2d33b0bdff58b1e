// Native consent in the desktop app, with a fake only at the Electron boundary (the dialog and the IPC
// sender): a page calls the real broker through the real gatekeeper, as a compromised renderer would.
// Nothing starts and nothing is saved without the dialog's confirm.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServerView } from '../../shared/api.js';
import { IPC } from '../../electron/ipc/channels.js';
import { pollUntil } from '../helpers/patience.js';
import { pickLaunch } from '../../electron/broker/core/server-service.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';
import type { ConsentDialogOptions } from '../../electron/main/consent-dialog.js';
import { CONSENT_POLICY, guardConsent } from '../../electron/main/consent-guard.js';
import { registerGatekeeper } from '../../electron/main/gatekeeper.js';
import { API_METHODS } from '../../shared/api-schema.js';
import { recordingTool, startInProcess, type InProcess } from '../helpers/in-process.js';
import { FakeIpcMain, senderEvent } from './fakes.js';

const WINDOW = 7;
let world: InProcess;
let scratch: string;
let marker: string;
let dialogs: ConsentDialogOptions[];
let answer: { response: number; checkboxChecked?: boolean };
let ipc: FakeIpcMain;

/** What the page can do: invoke the API through the gatekeeper, from the app's own window. */
async function page<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
  const reply = (await ipc.invoke(IPC.api, senderEvent({ id: WINDOW }), method, args)) as { ok: boolean; value?: T; error?: string };
  if (!reply.ok) throw new Error(reply.error);
  return reply.value as T;
}

const servers = (): Promise<ServerView[]> => world.api.listServers();
const view = async (name: string) => (await servers()).find((s) => s.name === name)!;

beforeEach(async () => {
  world = await startInProcess();
  scratch = mkdtempSync(join(tmpdir(), 'cs-consent-'));
  marker = join(scratch, 'ran');
  dialogs = [];
  answer = { response: 0 };
  ipc = new FakeIpcMain();
  const guarded = guardConsent(world.as('desktop'), {
    showDialog: async (options) => {
      dialogs.push(options);
      return answer;
    },
    launchHash,
    pickLaunch,
  });
  registerGatekeeper({ ipcMain: ipc, api: guarded, desktop: {} as never, appWebContentsId: () => WINDOW, onRendererReady: () => undefined });
});

afterEach(async () => {
  await world.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('native consent: a page that calls the API directly', () => {
  it('gets nothing saved and nothing started while the dialog is cancelled', async () => {
    const shell = { command: '/bin/sh', args: ['-c', `touch ${marker}`] };
    await expect(page('addServer', 'x', shell)).rejects.toThrow(/did not confirm in Countersign’s dialog, so nothing changed/);
    expect(await servers()).toEqual([]);
    // The server exists (added by the person in the CLI), but the page cannot let it run or trust it.
    await world.as('cli').addServer('x', shell);
    const shown = await view('x');
    await expect(page('approveLaunch', 'x', shown.launch.hash)).rejects.toThrow(/did not confirm/);
    await expect(page('setTrust', 'x', true, { launchHash: shown.launch.hash })).rejects.toThrow(/did not confirm/);
    await expect(page('pinServer', 'x', { launchHash: shown.launch.hash })).rejects.toThrow(/did not confirm/);
    await expect(page('importServers', { mcpServers: { y: { command: '/bin/sh', args: ['-c', `touch ${marker}`] } } })).rejects.toThrow(/did not confirm/);
    await expect(page('updateSettings', { policyPath: join(scratch, 'policy.json') })).rejects.toThrow(/did not confirm/);
    expect(dialogs.map((d) => d.title)).toEqual(['Add a server', 'Let a server run', 'Trust a server', 'Pin a server', 'Import servers', 'Team policy file']);
    const after = await view('x');
    expect([after.launch.approved, after.trusted, after.pin]).toEqual([false, false, undefined]);
    expect((await servers()).map((s) => s.name)).toEqual(['x']);
    expect((await world.api.getSettings()).policyPath).toBeUndefined();
    await expect(world.connect('x')).rejects.toThrow(/waits for your approval/);
    expect(existsSync(marker)).toBe(false);
    // Only the CLI's add reached the log, and the refusal of the launch that was tried.
    expect((await world.log()).map((e) => [e.kind, e.actor, e.decision])).toEqual([
      ['server', 'cli', 'allow'],
      ['launch', 'countersign', 'deny'],
    ]);
  });

  it('shows the exact command, every argument, the folder and env names (escaped), and acts on confirm only', async () => {
    const config = { command: '/bin/sh', args: ['-c', `touch ${marker}`, 'tab\there', '\u001b[2Jfake', ''], cwd: scratch, env: { API_TOKEN: 'hunter2' } };
    answer = { response: 1, checkboxChecked: false };
    await page('addServer', 'x', config);
    const add = dialogs[0]!;
    expect(add.buttons).toEqual(['Cancel', 'Add server']);
    expect([add.defaultId, add.cancelId]).toEqual([0, 0]);
    expect(add.checkboxLabel).toBe('Also let this exact command run');
    expect(add.detail.split('\n')).toEqual(
      expect.arrayContaining([
        '  [0] /bin/sh',
        '  [1] -c',
        `  [2] touch ${marker}`,
        '  [3] tab\\x09here',
        '  [4] \\x1b[2Jfake',
        '  [5] (empty)',
        `Folder: ${scratch}`,
        'Environment variables: API_TOKEN (values not shown)',
      ]),
    );
    expect(add.detail).not.toContain('hunter2');
    expect((await view('x')).launch.approved).toBe(false);

    const shown = await view('x');
    await page('approveLaunch', 'x', shown.launch.hash);
    expect(dialogs[1]!.message).toBe("Let 'x' run this on your computer?");
    expect(dialogs[1]!.detail).toContain(`Launch hash: ${shown.launch.hash}`);
    expect((await view('x')).launch.approved).toBe(true);
    expect((await world.log()).map((e) => [e.kind, e.actor])).toEqual([
      ['server', 'desktop'],
      ['launch', 'desktop'],
    ]);
  });

  it('adds and lets run in one dialog when its checkbox is ticked', async () => {
    answer = { response: 1, checkboxChecked: true };
    await world.serve('placeholder', (s, calls) => void recordingTool(s, calls, 'noop', { readOnlyHint: true }), { consent: false });
    await page('addServer', 'mem', { command: 'in-process', args: ['placeholder'] });
    expect(dialogs).toHaveLength(1);
    expect((await view('mem')).launch.approved).toBe(true);
  });

  it('refuses a request for something other than what is shown now, before any dialog', async () => {
    await world.as('cli').addServer('x', { command: '/bin/echo', args: ['a'] });
    const stale = (await view('x')).launch.hash;
    await world.as('cli').removeServer('x');
    await world.as('cli').addServer('x', { command: '/bin/sh', args: ['-c', `touch ${marker}`] });
    answer = { response: 1 };
    await expect(page('approveLaunch', 'x', stale)).rejects.toThrow(/changed after it was shown to you/);
    expect(dialogs).toEqual([]);
    expect((await view('x')).launch.approved).toBe(false);
  });

  it('one dialog at a time: a second request while one is open is refused', async () => {
    await world.as('cli').addServer('x', { command: '/bin/echo' });
    const hash = (await view('x')).launch.hash;
    let release!: (a: { response: number }) => void;
    const guarded = guardConsent(world.as('desktop'), {
      showDialog: (options) => {
        dialogs.push(options);
        return new Promise((r) => (release = r));
      },
      launchHash,
      pickLaunch,
    });
    const first = guarded.approveLaunch('x', hash);
    await vi.waitFor(() => expect(dialogs).toHaveLength(1)); // the first one's dialog is up
    await expect(guarded.approveLaunch('x', hash)).rejects.toThrow(/already asking you to confirm something/);
    release({ response: 1 });
    await first;
    expect(dialogs).toHaveLength(1);
    expect((await view('x')).launch.approved).toBe(true);
  });

  it('asks before an always-allow rule, a quarantine lift and accepted changes; untrust, unpin and reject need no dialog', async () => {
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'write_notes', { readOnlyHint: false }), { trusted: true });
    const client = await world.connect('notes');
    const result = client.callTool({ name: 'write_notes', arguments: { text: 'x' } });
    const pending = await world.waitForPending();
    await expect(page('decide', pending.id, { kind: 'always-allow' })).rejects.toThrow(/did not confirm/);
    expect(await world.api.listRules()).toEqual([]);
    await page('decide', pending.id, { kind: 'allow-once' });
    await result;
    expect(dialogs.map((d) => d.message)).toEqual(["Always allow write_notes on 'notes'?"]);
    await page('setTrust', 'notes', false);
    await page('unpinServer', 'notes');
    await page('reviewChanges', 'notes', 'reject');
    expect(dialogs).toHaveLength(1);
  });
});

describe('native consent: scoped rules', () => {
  it('asks before a rule that outlives the session or passes the exfiltration guard, and before widening one; not before narrowing', async () => {
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'write_notes', { readOnlyHint: false, openWorldHint: false }), { trusted: true });
    const client = await world.connect('notes');
    const call = (path: string) => client.callTool({ name: 'write_notes', arguments: { path, text: 'x' } });
    const first = call('/p/src/a.md');
    const pending = await world.waitForPending();
    const rule = { scope: { kind: 'under', dir: '/p/src' }, lifetime: { kind: 'minutes', minutes: 30 } };
    await expect(page('decide', pending.id, { kind: 'allow-rule', rule })).rejects.toThrow(/did not confirm/);
    expect(await world.api.listRules()).toEqual([]);
    expect(dialogs.at(-1)!.message).toBe("Allow write_notes on 'notes' without asking?");
    expect(dialogs.at(-1)!.detail).toMatch(/^Rule: write_notes on 'notes': files under \/p\/src, until /);
    answer = { response: 1 };
    await page('decide', pending.id, { kind: 'allow-rule', rule });
    await first;
    const [saved] = await world.api.listRules();
    expect(saved!.scope).toEqual({ kind: 'under', dir: '/p/src', keys: ['path'] });

    // A session rule behind the guard is no wider than "allow for this session": no dialog.
    const second = call('/p/other/b.md');
    const asked = await world.waitForPending();
    const count = dialogs.length;
    await page('decide', asked.id, { kind: 'allow-rule', rule: { scope: { kind: 'same-target' }, lifetime: { kind: 'session' } } });
    await second;
    expect(dialogs).toHaveLength(count);

    // Shortening needs nothing; lifting the end or covering the guard asks.
    answer = { response: 0 };
    await page('updateRule', saved!.id, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect(dialogs).toHaveLength(count);
    await expect(page('updateRule', saved!.id, { expiresAt: null })).rejects.toThrow(/did not confirm/);
    await expect(page('updateRule', saved!.id, { coversExfiltration: true })).rejects.toThrow(/did not confirm/);
    expect(dialogs.slice(count).map((d) => d.title)).toEqual(['Widen a rule', 'Widen a rule']);
    const [after] = (await world.api.listRules()).filter((r) => r.id === saved!.id);
    expect(after!.expiresAt).toBeDefined();
    expect(after!.coversExfiltration).toBeUndefined();
  });
});

describe('native consent: grants written by hand', () => {
  it('a page cannot confirm a hand-written trust without the dialog; the dialog shows the command; discarding is free', async () => {
    await world.serve('notes', (s, calls) => void recordingTool(s, calls, 'delete_all', { readOnlyHint: true }));
    const file = join(world.dataDir, 'settings.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { trusted: Record<string, boolean> };
    data.trusted = { notes: true };
    writeFileSync(file, JSON.stringify(data));
    // The broker re-reads the settings file within 50 ms: wait for the hand-written grant to be listed.
    const [grant] = await vi.waitFor(async () => {
      const listed = await page<Array<{ kind: 'trust'; server: string; hash: string }>>('listUnsealed');
      expect(listed.length).toBeGreaterThan(0);
      return listed;
    });
    const ref = { kind: grant!.kind, server: grant!.server, hash: grant!.hash };
    await expect(page('confirmUnsealed', ref)).rejects.toThrow(/did not confirm/);
    expect((await view('notes')).trusted).toBe(false);
    expect(dialogs.map((d) => d.title)).toEqual(['Trust a server']);
    expect(dialogs[0]!.detail).toContain('[1] notes');
    // Another hash than the one listed is refused before any dialog.
    await expect(page('confirmUnsealed', { ...ref, hash: 'f'.repeat(64) })).rejects.toThrow(/no longer what was shown to you/);
    expect(dialogs).toHaveLength(1);
    answer = { response: 1 };
    await page('confirmUnsealed', ref);
    expect((await view('notes')).trusted).toBe(true);
    expect(CONSENT_POLICY.discardUnsealed).toBe('free');
  });

  it('pointing the audit export somewhere, or turning it off, asks; cancelled, nothing changes', async () => {
    const to = { otlp: { endpoint: 'https://user:secret@collector.example:4318/v1/logs?token=abc', protocol: 'http/json' as const } };
    await expect(page('updateSettings', { auditExport: to })).rejects.toThrow(/did not confirm/);
    expect(dialogs.at(-1)).toMatchObject({ title: 'Audit export', message: 'Send the audit log here?' });
    expect(dialogs.at(-1)!.detail).toContain('Send to: OTLP http/json https://collector.example:4318/v1/logs');
    // What the dialog shows carries no credential of the URL.
    expect(dialogs.at(-1)!.detail).not.toMatch(/user:secret|token=abc/);
    expect((await world.api.getSettings()).auditExport).toBeUndefined();
    expect((await world.api.getStatus()).auditExport).toBeUndefined();
    await world.as('cli').updateSettings({ auditExport: { syslog: { transport: 'tcp', host: '127.0.0.1', port: 1, facility: 13, enterpriseId: 32473 } } });
    await expect(page('updateSettings', { auditExport: null })).rejects.toThrow(/did not confirm/);
    expect(dialogs.at(-1)).toMatchObject({ title: 'Audit export', message: 'Stop sending the audit log?' });
    expect(dialogs.at(-1)!.detail).toContain('Now sent to: syslog tcp://127.0.0.1:1');
    expect((await world.api.getSettings()).auditExport?.syslog?.port).toBe(1);
  });

  it('removing the team policy and confirming a hand-written policy path each ask; cancelled, nothing changes', async () => {
    const policy = join(scratch, 'policy.json');
    const other = join(scratch, 'other.json');
    writeFileSync(policy, JSON.stringify({ version: 1, block: ['x'] }));
    writeFileSync(other, JSON.stringify({ version: 1 }));
    await world.as('cli').updateSettings({ policyPath: policy }); // the person, from the CLI
    await expect(page('updateSettings', { policyPath: null })).rejects.toThrow(/did not confirm/);
    expect(dialogs.at(-1)).toMatchObject({ title: 'Team policy file', message: 'Stop using the team policy?' });
    expect(dialogs.at(-1)!.detail).toContain(policy);
    expect((await world.api.getSettings()).policyPath).toBe(policy);

    // An agent points settings.json elsewhere by hand: ignored; confirming it needs the dialog.
    const file = join(world.dataDir, 'settings.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { settings: Record<string, unknown> };
    data.settings.policyPath = other;
    writeFileSync(`${file}.tmp`, JSON.stringify(data), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
    const unsealed = await pollUntil(
      () => page<Array<{ kind: string; server: string; hash: string }>>('listUnsealed'),
      (l) => l.some((g) => g.kind === 'policy'),
      'the hand-set policy path among the unsealed grants',
    );
    const grant = unsealed.find((g) => g.kind === 'policy');
    await expect(page('confirmUnsealed', { kind: 'policy', server: '*', hash: grant!.hash })).rejects.toThrow(/did not confirm/);
    expect(dialogs.at(-1)).toMatchObject({ title: 'Team policy file', message: 'Use this file as the team policy?' });
    expect(dialogs.at(-1)!.detail).toContain(other);
    expect((await world.api.getStatus()).policy).toMatchObject({ path: policy, from: 'person', unconfirmed: other });

    answer = { response: 1 };
    await page('updateSettings', { policyPath: null });
    expect((await world.api.getSettings()).policyPath).toBeUndefined();
    expect(dialogs).toHaveLength(3);
  });
});

describe('native consent: the classification', () => {
  it('covers every API method, and guards each one that starts or changes a command', () => {
    for (const m of API_METHODS) expect(CONSENT_POLICY).toHaveProperty(m);
    for (const m of ['addServer', 'importServers', 'approveLaunch', 'pinServer', 'wrapClient', 'unwrapClient', 'confirmUnsealed'] as const)
      expect(CONSENT_POLICY[m]).toBe('consent');
    for (const m of ['setTrust', 'updateSettings', 'reviewChanges', 'decide', 'unpinServer', 'updateRule'] as const) expect(CONSENT_POLICY[m]).toBe('ask-if');
  });
});
