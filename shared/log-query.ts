// Which audit entries a log query selects: the broker's queries and the Activity screen's live updates
// use this one rule, so an entry added live is shown exactly when a fresh query would show it.
import type { AuditEntry, LogQuery } from './api.js';

export function logMatcher(query: LogQuery): (e: AuditEntry) => boolean {
  const needle = query.search?.toLowerCase();
  return (e) =>
    (!query.server || e.server === query.server) &&
    (!query.tool || e.tool === query.tool) &&
    (!query.decision || e.decision === query.decision) &&
    (!needle || [e.tool, e.server, e.detail ?? '', JSON.stringify(e.arguments) ?? ''].some((s) => s.toLowerCase().includes(needle)));
}

/** The query's limit as a count, or undefined for all. */
export function logLimit(query: LogQuery): number | undefined {
  return query.limit !== undefined && query.limit >= 0 ? Math.floor(query.limit) : undefined;
}
