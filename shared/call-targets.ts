// Which of a call's arguments name files, and what the call does to them, read from argument names
// (server-filesystem and the common editor-style tools), for the card's facts and words. Pure. Scoped
// rules do not rely on this list: they read every path anywhere in the call (shared/path-like.ts).

export type TargetRole = 'write' | 'edit' | 'delete' | 'move-from' | 'move-to' | 'read' | 'other';

export interface CallTarget {
  /** The top-level argument that holds the path (an array argument gives one target per item). */
  key: string;
  path: string;
  role: TargetRole;
}

/** What the broker found on disk for a target, when the path is absolute and it could look. */
export interface TargetFact extends CallTarget {
  exists?: boolean;
  /** Size in bytes of the existing file. */
  bytes?: number;
  /** The path is relative or could not be looked at: whether it exists is unknown. */
  unknown?: string;
}

const PATH_KEYS = ['path', 'file_path', 'filePath', 'filepath', 'file', 'filename', 'fileName', 'target_file', 'directory', 'dir'];
const LIST_KEYS = ['paths', 'files'];
const FROM_KEYS = ['source', 'src', 'from', 'oldPath', 'old_path'];
const TO_KEYS = ['destination', 'dest', 'target', 'to', 'newPath', 'new_path'];
export const CONTENT_KEYS = ['content', 'contents', 'file_text', 'fileText', 'new_content', 'newContent', 'text', 'data', 'body'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The tool name's verb, for calls whose arguments alone do not say (delete_file { path }). */
function verbRole(tool: string): TargetRole | undefined {
  const t = tool.toLowerCase();
  if (/(^|[_\-.])(delete|remove|rm|unlink|trash)([_\-.]|$)/.test(t)) return 'delete';
  if (/(^|[_\-.])(read|get|list|search|stat|info|view|head|tail|tree)([_\-.]|$)/.test(t)) return 'read';
  if (/(^|[_\-.])(write|create|save|put|overwrite)([_\-.]|$)/.test(t)) return 'write';
  if (/(^|[_\-.])(edit|patch|replace|append|update)([_\-.]|$)/.test(t)) return 'edit';
  return undefined;
}

/** Every file a call's arguments name, with what the call does to it. */
export function callTargets(tool: string, args: unknown): CallTarget[] {
  if (!isObject(args)) return [];
  const out: CallTarget[] = [];
  const hasContent = CONTENT_KEYS.some((k) => typeof args[k] === 'string');
  const hasEdits = Array.isArray(args.edits);
  const verb = verbRole(tool);
  const single: TargetRole = hasEdits ? 'edit' : hasContent ? 'write' : (verb ?? 'other');
  const add = (key: string, value: unknown, role: TargetRole) => {
    if (typeof value === 'string' && value.length > 0) out.push({ key, path: value, role });
  };
  for (const k of PATH_KEYS) if (Object.hasOwn(args, k)) add(k, args[k], single);
  for (const k of LIST_KEYS) {
    const list = args[k];
    if (Array.isArray(list)) for (const item of list) add(k, item, verb ?? 'other');
  }
  const from = FROM_KEYS.find((k) => typeof args[k] === 'string');
  const to = TO_KEYS.find((k) => typeof args[k] === 'string');
  if (from && to) {
    add(from, args[from], 'move-from');
    add(to, args[to], 'move-to');
  }
  return out;
}

/** The size in bytes of the new content a call writes, when its arguments carry it. */
export function writtenBytes(args: unknown): number | undefined {
  if (!isObject(args)) return undefined;
  const key = CONTENT_KEYS.find((k) => typeof args[k] === 'string');
  return key ? utf8Length(args[key] as string) : undefined;
}

/** UTF-8 length without TextEncoder's allocation (this runs for every pending call). */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i += 1;
    } else n += 3;
  }
  return n;
}

/** 2150 → "2.1 kB"; 900 → "900 B". */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** The last part of a path, for a sentence: `/home/ann/notes.md` → `notes.md`. */
export function shortPath(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, '');
  const last = trimmed.split(/[/\\]/).pop();
  return last && last.length ? last : path;
}
