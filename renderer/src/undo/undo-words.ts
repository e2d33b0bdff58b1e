// What an undo preview says about each file, in words: what it becomes, and what a version is when it
// cannot be shown as text. Pure, so the wording is tested apart from the screens.
import type { UndoableCall, UndoFilePlan, UndoVersion } from '../../../shared/undo';
import { formatBytes } from '../../../shared/call-targets';

/** The roles a path had in the calls undone ("move-from": undo puts the file back there). */
export function rolesByPath(calls: UndoableCall[]): Map<string, Set<string>> {
  const roles = new Map<string, Set<string>>();
  for (const c of calls) for (const f of c.files) roles.set(f.path, (roles.get(f.path) ?? new Set()).add(f.role));
  return roles;
}

/** What undo does to the file, as a short phrase after its path. */
export function actionWords(file: UndoFilePlan, roles: Set<string> | undefined): string {
  switch (file.action) {
    case 'restore':
      return roles?.has('move-from') ? 'moved back: put back here with its content from before the call' : 'restored to its content from before the call';
    case 'remove':
      return roles?.has('move-to')
        ? 'removed from where the call moved it (it is put back at its old place)'
        : 'removed again (it did not exist before the call)';
    case 'remove-folder':
      return 'folder removed again (it did not exist before the call)';
    case 'create-folder':
      return 'folder made again (it existed before the call)';
    case 'move-back':
      return 'moved back';
    case 'unchanged':
      return 'already as it was before the call: nothing to do';
  }
}

/** A version that has no text to show, in words ("did not exist", "binary, 2.1 kB"). */
export function versionWords(v: UndoVersion): string | undefined {
  if (v.text !== undefined) return undefined;
  const size = v.state.kind === 'file' ? `, ${formatBytes(v.state.size)}` : '';
  switch (v.noText) {
    case 'missing':
      return 'did not exist';
    case 'folder':
      return v.state.kind === 'dir' ? `a folder (${v.state.entries.length} ${v.state.entries.length === 1 ? 'entry' : 'entries'})` : 'a folder';
    case 'binary':
      return `binary content, not shown${size}`;
    case 'too-large':
      return `too large to show here${size}`;
    case 'not-kept':
      return `its content was not kept${size}`;
    case undefined:
      return v.state.kind === 'other' ? `${v.state.what}, not followed` : 'not shown';
  }
}

/** "1 file", "3 files". */
export const files = (n: number): string => `${n} ${n === 1 ? 'file' : 'files'}`;
