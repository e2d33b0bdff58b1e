// What an undo would do, before it does anything: for each file, what it becomes (its state before the
// oldest call undone), what the newest call left, and what is there now. Calls are undone newest first;
// a file that is not what the call left is a conflict the person must confirm. The preview's hash binds
// the person's consent to exactly this.
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { canonicalJson } from '../../../shared/canonical-json.js';
import type { FileState, UndoAction, UndoFilePlan, UndoPreview, UndoTarget, UndoVersion } from '../../../shared/undo.js';
import type { BlobStore } from './blob-store.js';
import { checkNoLinks, readNoFollow, sameState, stateOf } from './safe-path.js';
import type { Before, Catalog } from './undo-catalog.js';
import { viewOf } from './undo-catalog.js';

const TEXT_LIMIT = 256 * 1024;

/** A plan keeps, per file, the resolved path it works on (the preview shows the path as named). */
export interface PlannedFile extends UndoFilePlan {
  real: string;
  realFrom?: string;
}

export interface Plan {
  preview: UndoPreview;
  files: PlannedFile[];
  calls: Before[];
}

interface Step {
  snapshots: string[];
  path: string;
  real: string;
  becomes: FileState;
  after?: FileState;
  conflict?: string;
  from?: { path: string; real: string };
}

export async function planUndo(target: UndoTarget, calls: Before[], cat: Catalog, blobs: BlobStore, seqOf: (id: string) => number | undefined): Promise<Plan> {
  const sim = new Map<string, FileState>();
  const current = async (real: string): Promise<FileState> => sim.get(real) ?? (await stateOf(real));
  const steps = new Map<string, Step>();
  const nowOf = new Map<string, FileState>();
  for (const call of calls) {
    const after = cat.afters.get(call.id);
    const move = dirMove(call);
    for (const f of call.files) {
      const now = await current(f.real);
      if (!nowOf.has(f.real)) nowOf.set(f.real, now);
      const left = after?.files.find((a) => a.real === f.real)?.state;
      let conflict: string | undefined;
      if (left ? !sameState(now, left) : !sameState(now, f.state)) {
        conflict = left
          ? `${f.path} changed after the call (${call.tool}) left it.`
          : `Countersign did not see the call (${call.tool}) end, so it cannot tell whether ${f.path} is what the call left.`;
      }
      const step = steps.get(f.real) ?? { snapshots: [], path: f.path, real: f.real, becomes: f.state, after: left };
      step.snapshots.push(call.id);
      step.becomes = f.state; // older calls come later: the last one wins
      step.conflict ??= conflict;
      if (move && f.role === 'move-from') step.from = move;
      steps.set(f.real, step);
      sim.set(f.real, f.state);
    }
  }
  const files: PlannedFile[] = [];
  for (const s of steps.values()) {
    const now = nowOf.get(s.real)!;
    const fromNow = s.from ? await stateOf(s.from.real) : undefined;
    const planned = actionOf(s.becomes, now, s.from !== undefined, fromNow);
    const { action } = planned;
    const blocked = planned.blocked ?? linkOnTheWay(s.real, s.from?.real);
    files.push({
      path: s.path,
      real: s.real,
      snapshots: s.snapshots,
      action,
      ...(s.from ? { from: s.from.path, realFrom: s.from.real } : {}),
      becomes: await version(s.becomes, blobs),
      ...(s.after ? { after: await version(s.after, blobs) } : {}),
      now: await version(now, blobs, s.real),
      ...(s.conflict && action !== 'unchanged' ? { conflict: s.conflict } : {}),
      ...(blocked ? { blocked } : {}),
    });
  }
  // A folder is removed only when empty once the steps before it ran (a folder the call made inside it).
  const removed = new Set(files.filter((f) => (f.action === 'remove' || f.action === 'remove-folder') && !f.blocked).map((f) => f.real));
  for (const f of files) {
    if (f.action !== 'remove-folder' || f.blocked || f.now.state.kind !== 'dir') continue;
    const left = f.now.state.entries.filter((e) => !removed.has(join(f.real, e)));
    if (left.length) {
      f.blocked = 'The folder has files in it now; undo removes only an empty folder.';
      removed.delete(f.real);
    }
  }
  // A folder moved back also puts back its destination: that path needs no step of its own.
  const movedTo = new Set(files.filter((f) => f.action === 'move-back').map((f) => f.realFrom));
  const kept = files.filter((f) => !(movedTo.has(f.real) && f.action !== 'move-back'));
  const preview: UndoPreview = {
    target,
    calls: calls.map((c) => viewOf(c, cat, seqOf)),
    files: kept.map(({ real: _r, realFrom: _f, ...rest }) => rest),
    conflicts: kept.filter((f) => f.conflict).length,
    hash: '',
  };
  preview.hash = previewHash(preview, kept);
  return { preview, files: kept, calls };
}

/** A folder on the way that became a symbolic link since the call: undo will not go through it. */
function linkOnTheWay(real: string, from?: string): string | undefined {
  try {
    checkNoLinks(dirname(real));
    if (from) checkNoLinks(from, { leaf: false });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** A move of a folder is undone by moving it back (its content was never copied). */
function dirMove(call: Before): { path: string; real: string } | undefined {
  const from = call.files.find((f) => f.role === 'move-from');
  const to = call.files.find((f) => f.role === 'move-to');
  if (!from || !to || from.state.kind !== 'dir' || to.state.kind !== 'missing') return undefined;
  return { path: to.path, real: to.real };
}

function actionOf(becomes: FileState, now: FileState, moveBack: boolean, fromNow?: FileState): { action: UndoAction; blocked?: string } {
  if (moveBack) {
    if (now.kind !== 'missing') return { action: 'move-back', blocked: 'Something is at the folder’s old place now, so it is not moved back.' };
    if (fromNow?.kind !== 'dir') return { action: 'move-back', blocked: 'The moved folder is no longer where the call put it.' };
    return { action: 'move-back' };
  }
  switch (becomes.kind) {
    case 'missing':
      if (now.kind === 'missing') return { action: 'unchanged' };
      if (now.kind === 'dir') return { action: 'remove-folder' }; // only when empty: see planUndo
      return { action: 'remove' };
    case 'file':
      if (becomes.notKept) return { action: 'restore', blocked: 'Its content was over the size limit, so it was not kept.' };
      if (sameState(now, becomes)) return { action: 'unchanged' };
      if (now.kind === 'dir') return { action: 'restore', blocked: 'A folder is there now; undo does not replace a folder.' };
      return { action: 'restore' };
    case 'dir':
      if (now.kind === 'dir') return { action: 'unchanged' };
      if (now.kind === 'missing') return { action: 'create-folder' };
      return { action: 'create-folder', blocked: 'Something else is there now; undo does not replace it with the folder.' };
    case 'other':
      return { action: 'unchanged', blocked: `It was ${becomes.what}, which undo does not restore.` };
  }
}

/** A version as the preview shows it: its text when it is small text. */
async function version(state: FileState, blobs: BlobStore, onDisk?: string): Promise<UndoVersion> {
  if (state.kind === 'missing') return { state, noText: 'missing' };
  if (state.kind === 'dir') return { state, noText: 'folder' };
  if (state.kind !== 'file') return { state };
  if (state.size > TEXT_LIMIT) return { state, noText: 'too-large' };
  let bytes: Buffer;
  try {
    bytes = onDisk ? await readNoFollow(onDisk) : state.hash ? await blobs.read(state.hash) : Buffer.alloc(0);
  } catch {
    return { state, noText: 'not-kept' };
  }
  if (!onDisk && !state.hash) return { state, noText: 'not-kept' };
  if (bytes.subarray(0, 8192).includes(0)) return { state, noText: 'binary' };
  return { state, text: bytes.toString('utf8') };
}

/** The hash consent is bound to: every file, what it becomes and what is there now (by content hash). */
function previewHash(preview: UndoPreview, files: PlannedFile[]): string {
  const bound = {
    calls: preview.calls.map((c) => c.snapshot),
    files: files.map((f) => ({
      real: f.real,
      from: f.realFrom,
      action: f.action,
      becomes: f.becomes.state,
      now: f.now.state,
      conflict: f.conflict,
      blocked: f.blocked,
    })),
  };
  return createHash('sha256')
    .update(canonicalJson(JSON.parse(JSON.stringify(bound))))
    .digest('hex');
}
