// Saves audit entries as JSON Lines through a Blob URL and an <a download>: no server round trip, and
// no CSP change (navigation to blob: is not a fetch).
import type { AuditEntry } from '../../../shared/api';

export function toJsonl(entries: AuditEntry[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

export function downloadJsonl(entries: AuditEntry[], filename: string): void {
  const url = URL.createObjectURL(new Blob([toJsonl(entries)], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke after the browser has started the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
