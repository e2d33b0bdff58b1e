// What of an audit entry leaves the machine, for every destination: the entry with secrets masked
// (shared/secrets.ts) and env and header values hidden, and the attributes a SIEM indexes. seq and the
// chain hash go as they are, so a receiver can drop a record it already has (delivery is at least once).
import type { AuditEntry } from '../../../shared/api.js';
import { maskSecrets } from '../../../shared/secrets.js';

/** Names whose values are never exported, at any depth: a server's environment and HTTP headers. */
const HIDDEN_VALUES = new Set(['env', 'headers']);
const HIDDEN = '••••';

/** An entry's value with the values under env/headers hidden (their names kept) and secret-looking strings masked. */
function redact(value: unknown, key?: string): unknown {
  if (key !== undefined && HIDDEN_VALUES.has(key.toLowerCase()) && value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.keys(value).map((k) => [k, HIDDEN]));
  }
  if (Array.isArray(value)) return value.map((v) => redact(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, k)]));
  return maskSecrets(value, key);
}

/**
 * The entry as exported. Its `hash` is the log's (over the unmasked entry): it identifies the entry and
 * chains to the next one's `prev`, and `countersign verify` checks it on the machine.
 */
export function exportedEntry(entry: AuditEntry): AuditEntry {
  const { seq, prev, hash, ...rest } = entry;
  return { seq, ...(redact(rest) as Omit<AuditEntry, 'seq' | 'prev' | 'hash'>), prev, hash };
}

export type AttributeValue = string | number | string[];

/**
 * The record's attributes: the OpenTelemetry GenAI conventions for a tool call where they fit, and
 * Countersign's own (countersign.*). The same names are the syslog SD-PARAMs (docs/admin.md).
 */
export function exportAttributes(entry: AuditEntry): Record<string, AttributeValue> {
  const e = exportedEntry(entry);
  const kind = e.kind ?? 'call';
  const out: Record<string, AttributeValue> = {};
  if (kind === 'call') {
    out['gen_ai.operation.name'] = 'execute_tool';
    out['gen_ai.tool.name'] = e.tool;
    // The MCP request's own id is not recorded; the entry's seq names the call in Countersign's log.
    out['gen_ai.tool.call.id'] = `countersign-${e.seq}`;
    out['mcp.method.name'] = 'tools/call';
  }
  const set = (name: string, value: AttributeValue | undefined) => {
    if (value !== undefined && value !== '') out[`countersign.${name}`] = value;
  };
  set('seq', e.seq);
  set('hash', e.hash);
  set('prev', e.prev);
  set('kind', kind);
  set('time', e.time);
  set('server', e.server);
  set('tool', e.tool);
  set('decision', e.decision);
  set('decided_by', e.decidedBy);
  set('actor', e.actor);
  set('status', e.status);
  set('reasons', e.reasons.length ? e.reasons : undefined);
  set('rule.id', e.rule?.id);
  set('rule', e.rule?.text);
  set('limits', e.limits);
  set('client', e.client);
  set('duration_ms', e.durationMs);
  set('detail', e.detail);
  return out;
}
