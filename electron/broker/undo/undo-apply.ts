// Carries out an undo plan the person consented to. Every blob is read (and its hash checked) before
// anything is written, so a tampered snapshot writes nothing. Each file is checked again just before
// it is written (still what the preview showed; no link on its way), then written atomically. What
// the undo replaces is kept first, as a snapshot of its own, so the undo can be undone.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { UndoResult } from '../../../shared/undo.js';
import { syncDir } from './blob-store.js';
import { checkNoLinks, sameState, stateOf } from './safe-path.js';
import type { SnapFile } from './snapshot-index.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { Plan, PlannedFile } from './undo-plan.js';

export async function applyUndo(store: SnapshotStore, plan: Plan, actor: string): Promise<UndoResult> {
  const todo = plan.files.filter((f) => f.action !== 'unchanged' && !f.blocked);
  // 1. Every byte that will be written, verified against its hash, before any write.
  const bytes = new Map<string, Buffer>();
  for (const f of todo) {
    const s = f.becomes.state;
    if (f.action === 'restore' && s.kind === 'file' && s.hash) bytes.set(f.real, await store.blobs.read(s.hash));
  }
  for (const f of todo) {
    checkNoLinks(path.dirname(f.real));
    if (f.realFrom) checkNoLinks(f.realFrom, { leaf: false });
  }
  // 2. What the undo replaces, kept as its own snapshot.
  const touched = todo.flatMap((f) => (f.realFrom ? [f.real, f.realFrom] : [f.real]));
  const files: SnapFile[] = [];
  for (const real of touched) files.push({ path: real, real, role: 'write', state: await store.keepState(real) });
  const kept = await store.record({ server: '*', tool: 'undo' }, files, { undoOf: plan.calls.map((c) => c.id), actor });
  // 3. The writes.
  const out: UndoResult = { snapshot: kept.id, files: [] };
  for (const f of plan.files) {
    if (f.action === 'unchanged' || f.blocked) {
      out.files.push({ path: f.path, action: f.action, done: false, ...(f.blocked ? { error: f.blocked } : {}) });
      continue;
    }
    try {
      await writeOne(f, bytes.get(f.real));
      out.files.push({ path: f.path, action: f.action, done: true });
    } catch (err) {
      out.files.push({ path: f.path, action: f.action, done: false, error: (err as Error).message });
    }
  }
  await store.after(kept, touched, 'ok');
  await store.index.append({ type: 'undone', ids: plan.calls.map((c) => c.id), by: kept.id, time: new Date().toISOString() });
  return out;
}

async function writeOne(f: PlannedFile, bytes: Buffer | undefined): Promise<void> {
  const dir = path.dirname(f.real);
  checkNoLinks(dir);
  // Still what the preview showed (and what the person confirmed, for a conflict)?
  const now = await stateOf(f.real);
  if (!sameState(now, f.now.state) && !(now.kind === 'missing' && f.now.state.kind === 'missing')) {
    throw new Error(`${f.path} changed after the preview, so it was left as it is. Look at the preview again.`);
  }
  switch (f.action) {
    case 'restore': {
      const s = f.becomes.state;
      if (s.kind !== 'file' || !bytes) throw new Error('nothing kept to restore');
      await writeAtomic(f.real, bytes, s.mode);
      return;
    }
    case 'remove':
      await fs.promises.unlink(f.real); // a link itself, never what it points to
      break;
    case 'remove-folder':
      await fs.promises.rmdir(f.real);
      break;
    case 'create-folder':
      await fs.promises.mkdir(f.real, { mode: f.becomes.state.kind === 'dir' ? f.becomes.state.mode : 0o755 });
      break;
    case 'move-back':
      checkNoLinks(f.realFrom!, { leaf: false });
      if ((await fs.promises.lstat(f.realFrom!)).isSymbolicLink()) throw new Error(`${f.from} is now a symbolic link; it is not moved.`);
      await fs.promises.rename(f.realFrom!, f.real);
      await syncDir(path.dirname(f.realFrom!));
      break;
    case 'unchanged':
      return;
  }
  await syncDir(dir);
}

/** Temp file beside it (created, never opened through a link), synced, renamed over the path. */
async function writeAtomic(file: string, bytes: Buffer, mode: number): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.countersign-undo.${randomBytes(4).toString('hex')}`);
  const fh = await fs.promises.open(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    await fh.writeFile(bytes);
    await fh.chmod(mode);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await fs.promises.rename(tmp, file);
  await syncDir(path.dirname(file));
}
