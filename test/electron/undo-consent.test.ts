// Undo in the desktop app needs the native dialog: a page (the renderer, treated as compromisable)
// calling the API through the real gatekeeper writes nothing while the dialog is cancelled, cannot undo
// with a hash other than the preview's, and the dialog lists every file it puts back.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { UndoPreview } from '../../shared/undo.js';
import { IPC } from '../../electron/ipc/channels.js';
import { pickLaunch } from '../../electron/broker/core/server-service.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';
import type { ConsentDialogOptions } from '../../electron/main/consent-dialog.js';
import { CONSENT_POLICY, guardConsent } from '../../electron/main/consent-guard.js';
import { registerGatekeeper } from '../../electron/main/gatekeeper.js';
import { startInProcess, type InProcess } from '../helpers/in-process.js';
import { FakeIpcMain, senderEvent } from './fakes.js';

const WINDOW = 7;
let world: InProcess;
let dialogs: ConsentDialogOptions[];
let answer: { response: number };
let ipc: FakeIpcMain;

async function page<T = unknown>(method: string, ...args: unknown[]): Promise<T> {
  const reply = (await ipc.invoke(IPC.api, senderEvent({ id: WINDOW }), method, args)) as { ok: boolean; value?: T; error?: string };
  if (!reply.ok) throw new Error(reply.error);
  return reply.value as T;
}

beforeEach(async () => {
  world = await startInProcess();
  dialogs = [];
  answer = { response: 0 };
  ipc = new FakeIpcMain();
  const guarded = guardConsent(world.as('desktop'), { showDialog: async (o) => (dialogs.push(o), answer), launchHash, pickLaunch });
  registerGatekeeper({ ipcMain: ipc, api: guarded, desktop: {} as never, appWebContentsId: () => WINDOW, onRendererReady: () => undefined });
});
afterEach(async () => {
  await world.close();
});

describe('undo in the desktop app', () => {
  it('is classified consent, and writes nothing until the native dialog is confirmed', async () => {
    expect(CONSENT_POLICY.undo).toBe('consent');
    expect(CONSENT_POLICY.previewUndo).toBe('free');
    const file = join(world.dataDir, '..', `${world.dataDir.split('/').pop()}-notes.txt`);
    writeFileSync(file, 'mine');
    await world.serve(
      'files',
      (server) =>
        server.registerTool('write_file', { inputSchema: { path: z.string(), content: z.string() } }, async ({ path, content }) => {
          writeFileSync(path, content);
          return { content: [{ type: 'text' as const, text: 'ok' }] };
        }),
      { trusted: true },
    );
    const client = await world.connect('files');
    const call = client.callTool({ name: 'write_file', arguments: { path: file, content: 'agent' } });
    const pending = await world.waitForPending();
    expect(pending.undo).toEqual({ kind: 'available' });
    await world.api.decide(pending.id, { kind: 'allow-once' });
    await call;
    expect(readFileSync(file, 'utf8')).toBe('agent');

    const preview = await page<UndoPreview>('previewUndo', { server: 'files' });
    expect(dialogs).toEqual([]); // a preview reads only
    await expect(page('undo', { server: 'files' }, preview.hash)).rejects.toThrow(/did not confirm/);
    expect(dialogs.map((d) => d.title)).toEqual(['Undo']);
    expect(dialogs[0]!.detail).toContain(`${file}: restore`);
    expect(readFileSync(file, 'utf8')).toBe('agent');
    // A hash other than the preview's is refused before any dialog.
    await expect(page('undo', { server: 'files' }, 'e'.repeat(64))).rejects.toThrow(/changed after the undo preview was shown/);
    expect(dialogs).toHaveLength(1);
    answer = { response: 1 };
    await page('undo', { server: 'files' }, preview.hash);
    expect(readFileSync(file, 'utf8')).toBe('mine');
    expect((await world.log()).find((e) => e.kind === 'undo')).toMatchObject({ actor: 'desktop' });
  });
});
