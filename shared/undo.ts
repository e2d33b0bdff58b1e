// Undo of what a call changed: the shapes the API, the card and the CLI share. Types and pure logic only.
import { callTargets, type CallTarget, type TargetFact, type TargetRole } from './call-targets.js';

/** The roles whose files a call changes: their state is kept before the call is forwarded. */
export const CHANGING_ROLES: readonly TargetRole[] = ['write', 'edit', 'delete', 'move-from', 'move-to'];

/** Defaults of the snapshot store's bounds (Settings may change them). */
export const UNDO_DEFAULTS = { maxMB: 1024, maxDays: 30, maxFileMB: 100 } as const;

/** The files a call will change, as far as Countersign can tell from its tool and arguments. */
export function changedTargets(tool: string, args: unknown): CallTarget[] {
  return callTargets(tool, args).filter((t) => CHANGING_ROLES.includes(t.role));
}

/** A path's state as kept: what was there, never the bytes themselves (those are blobs, by hash). */
export type FileState =
  | { kind: 'missing' }
  | { kind: 'file'; size: number; mode: number; hash?: string; notKept?: 'too-large' }
  | { kind: 'dir'; mode: number; entries: string[] }
  /** A symbolic link, a socket…: never followed, never restored. */
  | { kind: 'other'; what: string };

/** Whether a pending call can be undone, for its card (before the person decides). */
export type UndoAvailability =
  | { kind: 'available' }
  | { kind: 'none'; why: string }
  /** Undo works for the other files; these are over the single-file limit and are not kept. */
  | { kind: 'too-large'; paths: string[]; limitBytes: number };

export const NO_UNDO_UNKNOWN = 'No undo: Countersign cannot tell which files this changes';

/** What the card says about undo, from the call's targets and their sizes on disk. */
export function undoAvailability(tool: string, args: unknown, targets: TargetFact[] | undefined, maxFileBytes: number): UndoAvailability {
  const changed = changedTargets(tool, args);
  if (!changed.length) return { kind: 'none', why: NO_UNDO_UNKNOWN };
  if (changed.some((t) => !t.path.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(t.path))) {
    return { kind: 'none', why: `${NO_UNDO_UNKNOWN} (a path is relative)` };
  }
  const big = (targets ?? []).filter((t) => (t.bytes ?? 0) > maxFileBytes).map((t) => t.path);
  return big.length ? { kind: 'too-large', paths: big, limitBytes: maxFileBytes } : { kind: 'available' };
}

/** The words the card shows for it. */
export function undoText(a: UndoAvailability): string {
  if (a.kind === 'available') return 'Undo available';
  if (a.kind === 'none') return a.why;
  return `Undo partial: ${a.paths.join(', ')} is over the ${Math.round(a.limitBytes / 1e6)} MB limit, so its content is not kept`;
}

/** Which calls to undo: one (by its log seq or snapshot id), or every call of a client/session since a time. */
export type UndoTarget = { seq: number } | { snapshot: string } | { client?: string; session?: string; server?: string; since?: string };

/** A call that can be undone, as `listUndoable` gives it. */
export interface UndoableCall {
  snapshot: string;
  /** The call's audit entry, once written. */
  seq?: number;
  time: string;
  server: string;
  tool: string;
  client?: string;
  session?: string;
  /** Set on an undo: the snapshots it undid. */
  undoOf?: string[];
  files: Array<{ path: string; role: string }>;
  /** Already undone, by this undo snapshot. */
  undoneBy?: string;
  /** A file over the limit (or a link): undo cannot restore it. */
  partial?: boolean;
}

/** One version of a file in the preview: its state, and its text when it is small text. */
export interface UndoVersion {
  state: FileState;
  text?: string;
  /** Not shown as text: binary, too large, or its bytes are not kept. */
  noText?: 'binary' | 'too-large' | 'not-kept' | 'folder' | 'missing';
}

export type UndoAction = 'restore' | 'remove' | 'remove-folder' | 'create-folder' | 'move-back' | 'unchanged';

/** One file in an undo preview. */
export interface UndoFilePlan {
  path: string;
  /** The snapshots (calls) whose change to this path is undone, newest first. */
  snapshots: string[];
  action: UndoAction;
  /** For a move back: where the file is now. */
  from?: string;
  /** What the path becomes (the state before the oldest call). */
  becomes: UndoVersion;
  /** What the newest call left (unknown when its end was not seen). */
  after?: UndoVersion;
  now: UndoVersion;
  /** The file changed since the call: a person must confirm before it is overwritten. */
  conflict?: string;
  /** Undo cannot restore this file (and nothing is written for it). */
  blocked?: string;
}

export interface UndoPreview {
  target: UndoTarget;
  calls: UndoableCall[];
  files: UndoFilePlan[];
  conflicts: number;
  /** Consent is bound to this: apply is refused when the preview changed since. */
  hash: string;
}

export interface UndoResult {
  /** The undo's own snapshot: undoing it puts back what the undo replaced. */
  snapshot: string;
  files: Array<{ path: string; action: UndoAction; done: boolean; error?: string }>;
}
