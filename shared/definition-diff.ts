// What changed in a tool definition, shaped for a review screen: a person approving a
// changed tool should see the exact words, parameters and hints that moved.
import { diffWordsWithSpace } from 'diff';
import { effectiveHints } from './annotations.js';
import { canonicalJson, jsonEqual } from './canonical-json.js';
import { HINT_NAMES, hintDirection, rawAnnotation, type Direction, type HintName } from './definition-change.js';
import { escapeControl } from './escape.js';
import type { ToolDefinition } from './tool.js';

/** A run of description text, already made visible with escapeControl (newlines kept), so safe to show. */
export interface TextPart {
  value: string;
  added?: boolean;
  removed?: boolean;
}

/** One difference between two JSON values. before/after are raw server data: escape before showing. */
export interface PathChange {
  /** e.g. `properties.sidenote`, `required[2]`; '' is the whole value. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before?: unknown;
  after?: unknown;
}

export type AnnotationRow =
  | {
      field: HintName;
      before: unknown;
      after: unknown;
      effectiveBefore: boolean;
      effectiveAfter: boolean;
      direction: Direction;
    }
  // The display title has no cautious default, so it carries no effective value or direction.
  | { field: 'title'; before: unknown; after: unknown };

export interface DefinitionDiff {
  name?: { from: string | undefined; to: string | undefined };
  title?: { from: string | undefined; to: string | undefined };
  description?: TextPart[] | { tooLarge: true };
  schemas: { inputSchema: PathChange[]; outputSchema: PathChange[] };
  annotations: AnnotationRow[];
  /** Annotation fields beyond the five known ones (unknown to the spec, so always worth showing). */
  otherAnnotations: PathChange[];
}

/** Beyond this, a word diff costs too much; the screen shows both texts instead. */
export const MAX_DESCRIPTION_DIFF_CHARS = 20_000;
// Myers' diff is O(N·D): past this many edits (~100 ms on 20k chars) show a whole replacement.
const MAX_EDIT_LENGTH = 1_000;

function textOf(value: unknown): string {
  if (value === undefined) return '';
  // Diffing the revealed text makes an added invisible character a visible change.
  return escapeControl(typeof value === 'string' ? value : canonicalJson(value), { keepNewlines: true });
}

function diffDescription(before: unknown, after: unknown): DefinitionDiff['description'] {
  if (jsonEqual(before, after)) return undefined;
  const from = textOf(before);
  const to = textOf(after);
  if (from.length > MAX_DESCRIPTION_DIFF_CHARS || to.length > MAX_DESCRIPTION_DIFF_CHARS) return { tooLarge: true };
  const changes = diffWordsWithSpace(from, to, { maxEditLength: MAX_EDIT_LENGTH });
  if (changes === undefined) {
    const parts: TextPart[] = [];
    if (from) parts.push({ value: from, removed: true });
    if (to) parts.push({ value: to, added: true });
    return parts;
  }
  return changes.map((c) => ({ value: c.value, ...(c.added && { added: true }), ...(c.removed && { removed: true }) }));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SIMPLE_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

// Dots for ordinary keys, ["…"] for anything that could be misread (dots, spaces, invisible characters).
function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (SIMPLE_KEY.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${escapeControl(JSON.stringify(key))}]`;
}

/** Walks two JSON values together; arrays are compared index by index. */
export function diffJsonPaths(before: unknown, after: unknown, path = '', out: PathChange[] = []): PathChange[] {
  if (before === undefined && after === undefined) return out;
  if (before === undefined) out.push({ path, kind: 'added', after });
  else if (after === undefined) out.push({ path, kind: 'removed', before });
  else if (Array.isArray(before) && Array.isArray(after)) {
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      diffJsonPaths(i < before.length ? before[i] : undefined, i < after.length ? after[i] : undefined, childPath(path, i), out);
    }
  } else if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) diffJsonPaths(ownValue(before, key), ownValue(after, key), childPath(path, key), out);
  } else if (!jsonEqual(before, after)) {
    out.push({ path, kind: 'changed', before, after });
  }
  return out;
}

function ownValue(obj: Record<string, unknown>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

function annotationRows(before: ToolDefinition | undefined, after: ToolDefinition | undefined): AnnotationRow[] {
  const rows: AnnotationRow[] = [];
  const title = { before: rawAnnotation(before, 'title'), after: rawAnnotation(after, 'title') };
  if (!jsonEqual(title.before, title.after)) rows.push({ field: 'title', ...title });
  const was = effectiveHints(before);
  const now = effectiveHints(after);
  for (const field of HINT_NAMES) {
    const raw = { before: rawAnnotation(before, field), after: rawAnnotation(after, field) };
    if (jsonEqual(raw.before, raw.after) && was[field] === now[field]) continue;
    rows.push({
      field,
      ...raw,
      effectiveBefore: was[field],
      effectiveAfter: now[field],
      direction: hintDirection(field, was[field], now[field]),
    });
  }
  return rows;
}

const KNOWN_ANNOTATIONS = new Set<string>(['title', ...HINT_NAMES]);

// Annotations minus the five known fields; undefined when nothing else is there.
function otherAnnotations(tool: ToolDefinition | undefined): unknown {
  const ann: unknown = tool?.annotations;
  if (!isPlainObject(ann)) return ann; // null, an array or a string is itself worth showing
  const rest = Object.fromEntries(Object.entries(ann).filter(([k]) => !KNOWN_ANNOTATIONS.has(k)));
  return Object.keys(rest).length > 0 ? rest : undefined;
}

function fromTo<T>(before: T, after: T): { from: T; to: T } | undefined {
  return jsonEqual(before, after) ? undefined : { from: before, to: after };
}

/** Either side may be absent: a new tool diffs against nothing, so everything shows as added. */
export function diffDefinitions(before: ToolDefinition | undefined, after: ToolDefinition | undefined): DefinitionDiff {
  const diff: DefinitionDiff = {
    schemas: {
      inputSchema: diffJsonPaths(before?.inputSchema, after?.inputSchema),
      outputSchema: diffJsonPaths(before?.outputSchema, after?.outputSchema),
    },
    annotations: annotationRows(before, after),
    otherAnnotations: diffJsonPaths(otherAnnotations(before), otherAnnotations(after)),
  };
  const name = fromTo(before?.name, after?.name);
  const title = fromTo(before?.title, after?.title);
  const description = diffDescription(before?.description, after?.description);
  if (name) diff.name = name;
  if (title) diff.title = title;
  if (description) diff.description = description;
  return diff;
}

export interface VersionChange {
  from: string | undefined;
  to: string | undefined;
  kind: 'added' | 'removed' | 'upgrade' | 'downgrade' | 'changed';
}

const NUMERIC_VERSION = /^v?\d+(?:\.\d+)*$/;

/**
 * A server's version change, or undefined when equal. Only plain dotted numbers are ordered;
 * anything else (pre-releases, git hashes) is just 'changed', since guessing an order could
 * make a downgrade look like an upgrade.
 */
export function diffVersions(from?: string, to?: string): VersionChange | undefined {
  if (from === to) return undefined;
  if (from === undefined) return { from, to, kind: 'added' };
  if (to === undefined) return { from, to, kind: 'removed' };
  if (!NUMERIC_VERSION.test(from) || !NUMERIC_VERSION.test(to)) return { from, to, kind: 'changed' };
  const a = from.replace(/^v/, '').split('.').map(Number);
  const b = to.replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return { from, to, kind: y > x ? 'upgrade' : 'downgrade' };
  }
  return { from, to, kind: 'changed' }; // '1.0' vs '1.0.0' or 'v1' vs '1': same number, different text
}
