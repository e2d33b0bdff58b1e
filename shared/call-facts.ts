// What Countersign knows around a call besides its decision, as the pending call carries it (api.ts)
// and the warnings read it (call-warnings.ts). Types only, so neither of those imports the other's.
import type { TargetFact } from './call-targets.js';

/** Limits the sandbox enforces for the server (filled from shared/limits once that lands). */
export interface EnforcedFacts {
  /** No network: enforced by the sandbox, so nothing leaves through this server. */
  noNetwork?: boolean;
  /** The server's files are mounted read-only: enforced, so it cannot change them. */
  readOnlyFiles?: boolean;
  /** What enforces them, for the sentence ("bubblewrap"). */
  by?: string;
}

/** What Countersign knows around a call, besides its decision: carried on the pending call. */
export interface CallFacts {
  /** What this agent read locally before, most recent last: paths where known, else "tool on server". */
  localReads?: string[];
  /** The files the call names, with what was found on disk. */
  targets?: TargetFact[];
  enforced?: EnforcedFacts;
}
