// The desktop app's undo dialog against what the renderer can ask (the renderer is compromisable): a
// conflict it asks to overwrite is spelled out in the native dialog, a file that changes while the
// dialog is open makes the confirmed undo write nothing, and a session revert lists every file. Fakes
// only at the Electron boundary (the dialog, the IPC sender); the broker, snapshots and files are real.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { UndoPreview } from '../../shared/undo.js';
import { IPC } from '../../electron/ipc/channels.js';
import { pickLaunch } from '../../electron/broker/core/server-service.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';
import type { ConsentDialogOptions } from '../../electron/main/consent-dialog.js';
import { guardConsent } from '../../electron/main/consent-guard.js';
import { registerGatekeeper } from '../../electron/main/gatekeeper.js';
import { startInProcess, type InProcess } from '../helpers/in-process.js';
import { pollUntil } from '../helpers/patience.js';
import { FakeIpcMain, senderEvent } from './fakes.js';

const WINDOW = 7;
let world: InProcess;
let dir: string;
let dialogs: ConsentDialogOptions[];
/** What the person does in the dialog (it may also change a file while it is open). */
let onDialog: () => { response: number };
let ipc: FakeIpcMain;

async function page<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
  const reply = (await ipc.invoke(IPC.api, senderEvent({ id: WINDOW }), method, args)) as { ok: boolean; value?: T; error?: string };
  if (!reply.ok) throw new Error(reply.error);
  return reply.value as T;
}

/**
 * A call the person allowed: a real file is written by the tool, with a snapshot kept first. Resolves
 * once its entry is logged and its after-state recorded (listUndoable waits for that): the broker
 * answers before it records what the call left, so a change made sooner would be taken as the call's.
 */
async function allowWrite(client: Awaited<ReturnType<InProcess['connect']>>, path: string, content: string): Promise<void> {
  const call = client.callTool({ name: 'write_file', arguments: { path, content } });
  const pending = await world.waitForPending((c) => (c.arguments as { path?: string }).path === path);
  await world.api.decide(pending.id, { kind: 'allow-once' });
  await call;
  await pollUntil(
    () => world.log(),
    (log) => log.some((e) => e.snapshot && (e.arguments as { content?: string }).content === content),
    'the call logged',
  );
  await world.api.listUndoable();
}

beforeEach(async () => {
  world = await startInProcess();
  dir = mkdtempSync(join(tmpdir(), 'cs-undo-dialog-'));
  dialogs = [];
  onDialog = () => ({ response: 0 });
  ipc = new FakeIpcMain();
  const guarded = guardConsent(world.as('desktop'), { showDialog: async (o) => (dialogs.push(o), onDialog()), launchHash, pickLaunch });
  registerGatekeeper({ ipcMain: ipc, api: guarded, desktop: {} as never, appWebContentsId: () => WINDOW, onRendererReady: () => undefined });
  await world.serve('files', (server) =>
    server.registerTool('write_file', { inputSchema: { path: z.string(), content: z.string() } }, async ({ path, content }) => {
      writeFileSync(path, content);
      return { content: [{ type: 'text' as const, text: 'ok' }] };
    }),
  );
});
afterEach(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An allowed write the person then edits again: its undo preview has that file as a conflict. */
async function conflicted(file: string): Promise<UndoPreview> {
  writeFileSync(file, 'before');
  const client = await world.connect('files');
  await allowWrite(client, file, 'agent');
  writeFileSync(file, 'the person kept writing');
  const preview = await page<UndoPreview>('previewUndo', { server: 'files' });
  expect(preview.conflicts).toBe(1);
  return preview;
}

describe('the undo dialog and a compromisable renderer', () => {
  it('a conflict the page asks to overwrite is spelled out in the dialog; cancelled, nothing is written', async () => {
    const file = join(dir, 'notes.md');
    const preview = await conflicted(file);
    await expect(page('undo', { server: 'files' }, preview.hash, { confirmConflicts: true })).rejects.toThrow(/did not confirm/);
    expect(dialogs).toHaveLength(1);
    expect(dialogs[0]!.detail).toContain(`${file}: restore\n  changed since the call: `);
    expect(dialogs[0]!.detail).toContain('It will be overwritten.');
    expect(readFileSync(file, 'utf8')).toBe('the person kept writing');
  });

  it('a conflict the page did not confirm is refused before any dialog: the person is never asked to overwrite it', async () => {
    const file = join(dir, 'kept.md');
    const preview = await conflicted(file);
    await expect(page('undo', { server: 'files' }, preview.hash)).rejects.toThrow(/Confirm the conflict first/);
    expect(dialogs).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe('the person kept writing');
  });

  it('a file that changes while the dialog is open: the confirmed undo writes nothing', async () => {
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'mine');
    const client = await world.connect('files');
    await allowWrite(client, file, 'agent');
    const preview = await page<UndoPreview>('previewUndo', { server: 'files' });
    expect(preview.conflicts).toBe(0);
    onDialog = () => {
      writeFileSync(file, 'changed during the dialog');
      return { response: 1 };
    };
    await expect(page('undo', { server: 'files' }, preview.hash)).rejects.toThrow(/changed after the undo preview was shown/);
    expect(dialogs).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe('changed during the dialog');
    expect((await world.log()).some((e) => e.kind === 'undo')).toBe(false);
  });

  it('a session revert lists every file in the dialog, and confirmed puts each back', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    writeFileSync(a, 'a0');
    const client = await world.connect('files', 'agent-x');
    await allowWrite(client, a, 'a1');
    await allowWrite(client, a, 'a2');
    await allowWrite(client, b, 'b1');
    const calls = await page<Array<{ session?: string; client?: string }>>('listUndoable');
    expect(new Set(calls.map((c) => c.client))).toEqual(new Set(['agent-x']));
    const target = { session: calls[0]!.session! };
    const preview = await page<UndoPreview>('previewUndo', target);
    expect(preview.files.map((f) => [f.path, f.action])).toEqual(
      expect.arrayContaining([
        [a, 'restore'],
        [b, 'remove'],
      ]),
    );
    onDialog = () => ({ response: 1 });
    await page('undo', target, preview.hash);
    expect(dialogs[0]!.message).toBe('Put back 2 file(s) as they were before 3 call(s)?');
    expect(dialogs[0]!.detail).toContain(`${a}: restore`);
    expect(dialogs[0]!.detail).toContain(`${b}: remove`);
    expect(readFileSync(a, 'utf8')).toBe('a0');
    expect(() => readFileSync(b)).toThrow(/ENOENT/);
  });
});
