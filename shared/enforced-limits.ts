// What a running server's sandbox really enforces, as facts a decision may rest on. Only facts remove
// friction: a limit that was asked but is not enforced (no sandbox here, no network namespace) counts
// for nothing, and a server's claims never become facts. Pure, so the broker, the UI and tests agree.
import { summarizeEnforced, type LimitsEnforcement, type LimitsProfile } from './limits.js';
import type { EffectiveHints, ToolDefinition } from './tool.js';

/** The limits a server's process was started under, and how each stands there. */
export interface LimitsInForce {
  limits: LimitsProfile;
  enforcement: LimitsEnforcement;
}

export interface EnforcedFacts {
  /** The process has no network at all (its own empty namespace): nothing can leave through it. */
  noNetwork: boolean;
  /** None of the person's files is writable by it (only its private /tmp and home, which die with it). */
  readOnlyFiles: boolean;
  /** The badge, honest about what is not enforced: "no network · read-only ~/p (enforced)". */
  summary: string;
}

export const NO_FACTS: EnforcedFacts = { noNetwork: false, readOnlyFiles: false, summary: 'no limits' };

export function enforcedFacts(running: LimitsInForce | undefined, home?: string): EnforcedFacts {
  if (!running) return NO_FACTS;
  const { limits, enforcement } = running;
  return {
    noNetwork: limits.network === 'none' && enforcement.network === 'enforced',
    readOnlyFiles: limits.filesystem !== 'host' && limits.filesystem.write.length === 0 && enforcement.filesystem === 'enforced',
    summary: summarizeEnforced(limits, enforcement, home),
  };
}

/** The hints as the facts make them: with the network enforced off, the tool is closed-world in fact. */
export function hintsUnderLimits(hints: EffectiveHints, facts: EnforcedFacts | undefined): EffectiveHints {
  return facts?.noNetwork ? { ...hints, openWorldHint: false } : hints;
}

/** A trusted server's read-only claim that its enforced read-only mounts back. */
export function readOnlyEnforced(hints: EffectiveHints, facts: EnforcedFacts | undefined): boolean {
  return !!facts?.readOnlyFiles && hints.readOnlyHint;
}

/** What the decision notes about the limits: facts that removed friction, and claims they contradict. */
export type LimitNote = 'network-off-enforced' | 'open-world-without-network' | 'write-on-read-only';

function supplied(tool: ToolDefinition | undefined, name: 'readOnlyHint' | 'openWorldHint'): boolean | undefined {
  const ann: unknown = tool?.annotations;
  if (typeof ann !== 'object' || ann === null || !Object.prototype.hasOwnProperty.call(ann, name)) return undefined;
  const v = (ann as Record<string, unknown>)[name];
  return typeof v === 'boolean' ? v : undefined;
}

/**
 * Claims an enforced limit contradicts (`openWorldHint: true` with no network; a tool that says it
 * writes on a server that can write none of the person's files), and the closed world the network limit
 * makes. Contradictions are flagged, never trusted: they do not change the outcome by themselves.
 */
export function limitNotes(tool: ToolDefinition | undefined, facts: EnforcedFacts | undefined): LimitNote[] {
  if (!facts) return [];
  const notes: LimitNote[] = [];
  if (facts.noNetwork) notes.push(supplied(tool, 'openWorldHint') === true ? 'open-world-without-network' : 'network-off-enforced');
  if (facts.readOnlyFiles && supplied(tool, 'readOnlyHint') === false) notes.push('write-on-read-only');
  return notes;
}
