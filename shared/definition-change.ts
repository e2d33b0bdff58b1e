// Decides whether a changed tool definition needs a person to look again.
// Rulebook: annotations may add friction but never remove it, so only a change that makes
// the effective hints more cautious, and touches nothing else, can pass without review.
import { effectiveHints } from './annotations.js';
import { jsonEqual } from './canonical-json.js';
import type { EffectiveHints, ToolDefinition } from './tool.js';

export type Change =
  | { kind: 'none' }
  | { kind: 'added' }
  | { kind: 'removed' }
  /** fields: the hints whose effective value became more cautious (may be empty: see classifyChange). */
  | { kind: 'friction-only'; fields: string[] }
  /** fields: every recorded field whose raw value changed, e.g. 'description', 'annotations.readOnlyHint'. */
  | { kind: 'needs-review'; fields: string[] };

export type HintName = keyof EffectiveHints['supplied'];
export type Direction = 'more-cautious' | 'less-cautious' | 'same';

// The cautious value of each hint is its default: what a tool with no annotations gets.
const CAUTIOUS = effectiveHints(undefined);
export const HINT_NAMES = Object.keys(CAUTIOUS.supplied) as HintName[];

/** Whether an effective hint moved toward its cautious default, away from it, or not at all. */
export function hintDirection(name: HintName, before: boolean, after: boolean): Direction {
  if (before === after) return 'same';
  return after === CAUTIOUS[name] ? 'more-cautious' : 'less-cautious';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The annotation value exactly as sent (own property only), or undefined. */
export function rawAnnotation(tool: ToolDefinition | undefined, field: string): unknown {
  const ann: unknown = tool?.annotations;
  return isPlainObject(ann) && Object.prototype.hasOwnProperty.call(ann, field) ? ann[field] : undefined;
}

const TOP_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema'] as const;

// Every recorded field whose raw value differs, annotations field by field.
function changedFields(before: ToolDefinition, after: ToolDefinition): string[] {
  const fields: string[] = TOP_FIELDS.filter((f) => !jsonEqual(before[f], after[f]));
  const a = before.annotations as unknown;
  const b = after.annotations as unknown;
  const objectOrAbsent = (v: unknown) => v === undefined || isPlainObject(v);
  if (!objectOrAbsent(a) || !objectOrAbsent(b)) {
    if (!jsonEqual(a, b)) fields.push('annotations');
    return fields;
  }
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const key of [...keys].sort()) {
    if (!jsonEqual(rawAnnotation(before, key), rawAnnotation(after, key))) fields.push(`annotations.${key}`);
  }
  return fields;
}

/**
 * Compares the recorded (canonical) definitions.
 *
 * A raw change that keeps every effective hint the same, e.g. `openWorldHint: true` removed
 * (true is the default) or `annotations: {}` dropped, is 'friction-only' with `fields: []`:
 * the canonical record differs, so the stored hash must be refreshed, but nothing a person
 * relies on got weaker. Each hint is judged on its own, even where readOnlyHint makes
 * destructiveHint moot, so loosening any of them asks again.
 */
export function classifyChange(before: ToolDefinition | undefined, after: ToolDefinition | undefined): Change {
  if (before === undefined) return after === undefined ? { kind: 'none' } : { kind: 'added' };
  if (after === undefined) return { kind: 'removed' };

  const fields = changedFields(before, after);
  const onlyHints = fields.every((f) => HINT_NAMES.some((h) => f === `annotations.${h}`));
  if (!onlyHints) return { kind: 'needs-review', fields };

  // Hint fields only: compare what the hints mean, not how they are spelled.
  const was = effectiveHints(before);
  const now = effectiveHints(after);
  const directions = HINT_NAMES.map((h) => [h, hintDirection(h, was[h], now[h])] as const);
  if (directions.some(([, d]) => d === 'less-cautious')) return { kind: 'needs-review', fields };
  if (fields.length === 0 && jsonEqual(before.annotations, after.annotations)) return { kind: 'none' };
  return { kind: 'friction-only', fields: directions.filter(([, d]) => d === 'more-cautious').map(([h]) => `annotations.${h}`) };
}
