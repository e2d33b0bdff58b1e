// Reads a tool's annotations with the rulebook's cautious defaults.
// Only real booleans count: "true", 1 or null from a server are treated as missing.
import type { EffectiveHints, ToolDefinition } from './tool.js';

type HintName = keyof EffectiveHints['supplied'];

// Cautious defaults: the tool changes things, destructively, and reaches outside.
const DEFAULTS: Readonly<Record<HintName, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

const NAMES = Object.keys(DEFAULTS) as HintName[];

// Own properties only, so a polluted prototype cannot supply a hint.
function suppliedValue(tool: ToolDefinition | undefined, name: HintName): boolean | undefined {
  const ann: unknown = tool?.annotations;
  if (typeof ann !== 'object' || ann === null || !Object.prototype.hasOwnProperty.call(ann, name)) return undefined;
  const value = (ann as Record<string, unknown>)[name];
  return typeof value === 'boolean' ? value : undefined;
}

export function effectiveHints(tool: ToolDefinition | undefined): EffectiveHints {
  const hints = { ...DEFAULTS, supplied: {} as EffectiveHints['supplied'] };
  for (const name of NAMES) {
    const value = suppliedValue(tool, name);
    hints.supplied[name] = value !== undefined;
    hints[name] = value ?? DEFAULTS[name];
  }
  return hints;
}

/** True when the server supplied at least one of the four hints as a real boolean. */
export function hasAnyAnnotation(tool: ToolDefinition | undefined): boolean {
  return NAMES.some((name) => suppliedValue(tool, name) !== undefined);
}

/** The hints with every claim that would remove friction dropped: what an untrusted server gets. */
export function cautiousHints(hints: EffectiveHints): EffectiveHints {
  return { ...DEFAULTS, supplied: { ...hints.supplied } };
}
