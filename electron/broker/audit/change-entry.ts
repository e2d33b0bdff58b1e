// The audit entry for a change of state (not a tool call): what changed, on which server, and who
// changed it. Every change the broker makes goes through here, whichever surface asked for it.
import type { Actor, AuditEntry } from '../../../shared/api.js';
import type { NewAuditEntry } from './audit-log.js';

export type ChangeKind = Exclude<NonNullable<AuditEntry['kind']>, 'call'>;

export interface Change {
  kind: ChangeKind;
  actor: Actor;
  server: string;
  /** A tool, for a review; '*' when the change is about the whole server (or none). */
  tool?: string;
  /** One line a person reads in the log. */
  what: string;
  /** The details, recorded as the entry's arguments. */
  details?: unknown;
  /** 'deny' for changes that take something away (untrust, reject, quarantine). */
  decision?: 'allow' | 'deny';
  /** The snapshot an undo kept of what it replaced (undo/). */
  snapshot?: string;
}

/** A person made it through a surface; the team policy and Countersign itself decide as 'policy'. */
export function isPerson(actor: Actor): boolean {
  return actor !== 'policy' && actor !== 'countersign';
}

export function changeEntry(change: Change): NewAuditEntry {
  return {
    kind: change.kind,
    actor: change.actor,
    time: new Date().toISOString(),
    server: change.server,
    tool: change.tool ?? '*',
    arguments: change.details ?? {},
    decision: change.decision ?? 'allow',
    decidedBy: isPerson(change.actor) ? 'person' : 'policy',
    reasons: [],
    durationMs: 0,
    status: 'ok',
    detail: change.what,
    ...(change.snapshot ? { snapshot: change.snapshot } : {}),
  };
}
