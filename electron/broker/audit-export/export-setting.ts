// The person's audit export destination (settings.auditExport), changed through the core: refused while
// the managed policy decides it, audited with its header values hidden, and never shown back in full.
import type { Actor, Settings } from '../../../shared/api.js';
import { HIDDEN_HEADER, hideHeaders, type AuditExportDestination } from '../../../shared/audit-export-schema.js';
import type { BrokerCore } from '../core/broker-core.js';
import { assertExportChangeable } from './export-destination.js';

/** Sets (null: removes) the person's export destination. A header sent as HIDDEN_HEADER keeps its saved value. */
export function setAuditExport(core: BrokerCore, to: AuditExportDestination | null, actor: Actor): void {
  assertExportChangeable(core.trust.managed.current());
  const before = core.store.getSettings().auditExport;
  const next = to && withSavedHeaders(to, before);
  core.store.updateSettings({ auditExport: next ?? null });
  core.record({
    kind: 'settings',
    actor,
    server: '*',
    what: next ? 'audit export destination set' : 'audit export turned off',
    details: { from: before ? hideHeaders(before) : null, to: next ? hideHeaders(next) : null },
  });
  core.auditExport.refresh();
  core.emit({ type: 'settings-changed' });
}

function withSavedHeaders(to: AuditExportDestination, before: AuditExportDestination | undefined): AuditExportDestination {
  const headers = to.otlp?.headers;
  if (!headers || !to.otlp) return to;
  const saved = before?.otlp?.headers ?? {};
  const kept = Object.entries(headers).map(([k, v]): [string, string] => {
    if (v !== HIDDEN_HEADER) return [k, v];
    if (saved[k] === undefined) throw new Error(`The header "${k}" has no saved value to keep: give its value.`);
    return [k, saved[k]];
  });
  return { ...to, otlp: { ...to.otlp, headers: Object.fromEntries(kept) } };
}

/** Settings as a surface may see them: the export's header values hidden. */
export function shownSettings(settings: Settings): Settings {
  return settings.auditExport ? { ...settings, auditExport: hideHeaders(settings.auditExport) } : settings;
}
