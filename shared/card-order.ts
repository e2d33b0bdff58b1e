// Where each line about a call stands, defined once for every place a call is worded: the queue card,
// the call detail, and the approval form sent to the client. What this call does comes first (after
// Countersign's own files and data leaving), then who asks, then what is assumed because nothing
// checked it, then notes. Facts are labelled as facts ("This call"), never as warnings.
import type { Severity } from './decision.js';

/** In order: the first tiers lead. */
export const TIERS = [
  /** It touches Countersign's own files or a client's config. */
  'own-files',
  /** An open-world tool may send what this agent read. */
  'sends-out',
  /** What this call destroys: deletes, overwrites, replaces. */
  'destroys',
  /** What else it does: creates, writes, edits, moves, only reads, only adds. */
  'does',
  /** Who asks: a server that takes another's name, look-alike names, dangerous text. */
  'who-asks',
  /** Nothing is known: a tool never listed, a changed definition, no annotations. */
  'unknown',
  /** Cautious defaults, with any claim that nothing checked beside them. */
  'assumed',
  /** Scan findings worth a look. */
  'scan',
  /** Limits the sandbox enforces. */
  'enforced',
  'note',
] as const;

export type Tier = (typeof TIERS)[number];

/** At most this many lines stand on the card and before the preview; the rest are one click away. */
export const HEADLINE_COUNT = 3;

const ORDER = new Map<Tier, number>(TIERS.map((t, i) => [t, i]));
const FACTS = new Set<Tier>(['destroys', 'does']);
const QUIET = new Set<Tier>(['enforced', 'note']);

export interface Ranked {
  tier: Tier;
  severity: Severity;
}

/** Lines in tier order; within a tier, in the order they were found. */
export function byTier<T extends Ranked>(lines: readonly T[]): T[] {
  return lines
    .map((w, i) => [w, i] as const)
    .sort((a, b) => ORDER.get(a[0].tier)! - ORDER.get(b[0].tier)! || a[1] - b[1])
    .map(([w]) => w);
}

/** Whether a line may stand on the card: what the call does and what to watch, not notes. */
export function isHeadline(w: Ranked): boolean {
  return !QUIET.has(w.tier);
}

/** A fact about what the call does, labelled as such rather than as a warning. */
export function isFact(w: Ranked): boolean {
  return FACTS.has(w.tier);
}

/** The lines on the card (at most `count`, in order), the rest, and how many of the rest could have stood there. */
export function splitHeadline<T extends Ranked>(lines: readonly T[], count = HEADLINE_COUNT): { headline: T[]; more: T[]; moreNotable: number } {
  const headline = lines.filter(isHeadline).slice(0, count);
  const more = lines.filter((w) => !headline.includes(w));
  return { headline, more, moreNotable: more.filter(isHeadline).length };
}

const SEVERITY_WORD: Record<Severity, string> = { danger: 'Danger', warning: 'Warning', info: 'Note' };

/** The word before a line: "This call" for a fact, else how much it matters. */
export function lineLabel(w: Ranked): string {
  if (isFact(w)) return 'This call';
  if (QUIET.has(w.tier)) return 'Note';
  return SEVERITY_WORD[w.severity];
}
