// The person's audit export destination, changed through the core: refused while the managed policy
// decides it; sealed (store/grant-seal.ts), so the sealed copy is the one in effect and a hand edit of
// settings.json changes nothing; written to settings.json as a copy; audited with its header values
// hidden, and never shown back in full.
import type { Actor, Settings } from '../../../shared/api.js';
import { canonicalJson } from '../../../shared/canonical-json.js';
import { HIDDEN_HEADER, hideHeaders, type AuditExportDestination } from '../../../shared/audit-export-schema.js';
import type { BrokerCore } from '../core/broker-core.js';
import type { GrantSeal } from '../store/grant-seal.js';
import type { SettingsStore } from '../store/settings-store.js';
import { assertExportChangeable } from './export-destination.js';

/** Sets (null: removes) the person's export destination. A header sent as HIDDEN_HEADER keeps its saved value. */
export function setAuditExport(core: BrokerCore, to: AuditExportDestination | null, actor: Actor): void {
  assertExportChangeable(core.trust.managed.current());
  const before = core.seal.auditExport();
  const next = to && withSavedHeaders(to, before);
  // Sealed first: a failed seal changes nothing; a crash between leaves the sealed choice in effect.
  core.seal.update((g) => {
    if (next) g.auditExport = next;
    else delete g.auditExport;
  });
  core.store.updateSettings({ auditExport: next ?? null });
  core.record({
    kind: 'settings',
    actor,
    server: '*',
    what: next ? 'audit export destination set' : 'audit export turned off',
    details: { from: before ? hideHeaders(before) : null, to: next ? hideHeaders(next) : null },
    decision: next ? 'allow' : 'deny',
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

/** Settings as a surface may see them: the export in effect (the sealed one), its header values hidden. */
export function shownSettings(settings: Settings, seal: GrantSeal): Settings {
  const { auditExport: _inFile, ...rest } = settings;
  const sealed = seal.auditExport();
  return sealed ? { ...rest, auditExport: hideHeaders(sealed) } : rest;
}

/** settings.json names another destination than the sealed one (written outside Countersign): ignored, and said. */
export function handEditedExport(store: SettingsStore, seal: GrantSeal): string | undefined {
  const inFile = store.getSettings().auditExport;
  const sealed = seal.auditExport();
  if (canonicalJson(inFile ?? null) === canonicalJson(sealed ?? null)) return undefined;
  return (
    'settings.json names an audit export destination that was not set in Countersign (a hand edit?): it is ignored. ' +
    (sealed ? 'The export goes on to the destination set in Countersign.' : 'No export runs until one is set in Countersign.')
  );
}
