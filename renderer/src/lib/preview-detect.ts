// Decides what preview a call's arguments allow: a whole-file write (path + content) or edits
// (old/new text pairs). The names cover server-filesystem and the common editor-style tools.

export interface EditPair {
  oldText: string;
  newText: string;
}

export type PreviewPlan =
  | { kind: 'write'; path: string; content: string; pathKey: string; contentKey: string }
  | { kind: 'edit'; path?: string; edits: EditPair[] }
  | { kind: 'move'; source: string; destination: string }
  | { kind: 'delete'; path: string }
  | { kind: 'none' };

/** Source and target of move/rename-style tools (server-filesystem's move_file uses the first). */
const MOVE_KEYS: Array<[string, string]> = [
  ['source', 'destination'],
  ['from', 'to'],
  ['src', 'dst'],
  ['src', 'dest'],
  ['oldPath', 'newPath'],
  ['old_path', 'new_path'],
  ['source_path', 'destination_path'],
];
/** A tool whose name says it deletes: delete_file, remove-dir, rm, unlink, trash… */
const DELETE_NAME = /(^|[_\-.])(delete|remove|rm|rmdir|unlink|trash|erase)([_\-.]|$)/i;

const PATH_KEYS = ['path', 'file_path', 'filePath', 'filepath', 'file', 'filename', 'fileName', 'target_file'];
const CONTENT_KEYS = ['content', 'contents', 'file_text', 'fileText', 'new_content', 'newContent', 'text', 'data', 'body'];
const PAIRS: Array<[string, string]> = [
  ['oldText', 'newText'],
  ['old_text', 'new_text'],
  ['old_string', 'new_string'],
  ['oldString', 'newString'],
  ['old_str', 'new_str'],
  ['search', 'replace'],
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstString(obj: Record<string, unknown>, keys: string[]): [string, string] | undefined {
  for (const k of keys) if (typeof obj[k] === 'string') return [k, obj[k]];
  return undefined;
}

function pairOf(obj: Record<string, unknown>): EditPair | undefined {
  for (const [a, b] of PAIRS) {
    if (typeof obj[a] === 'string' && typeof obj[b] === 'string') return { oldText: obj[a], newText: obj[b] };
  }
  return undefined;
}

export function detectPreview(args: unknown, tool = ''): PreviewPlan {
  if (!isObject(args)) return { kind: 'none' };
  for (const [a, b] of MOVE_KEYS) {
    if (typeof args[a] === 'string' && typeof args[b] === 'string') return { kind: 'move', source: args[a], destination: args[b] };
  }
  const path = firstString(args, PATH_KEYS);
  if (path && DELETE_NAME.test(tool)) return { kind: 'delete', path: path[1] };
  if (Array.isArray(args.edits)) {
    const edits = args.edits.filter(isObject).map(pairOf);
    if (edits.length > 0 && edits.every((e): e is EditPair => e !== undefined)) return { kind: 'edit', path: path?.[1], edits };
  }
  const single = pairOf(args);
  if (single) return { kind: 'edit', path: path?.[1], edits: [single] };
  const content = firstString(args, CONTENT_KEYS);
  if (path && content) return { kind: 'write', path: path[1], pathKey: path[0], content: content[1], contentKey: content[0] };
  return { kind: 'none' };
}
