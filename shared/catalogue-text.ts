// How a server stands with the organization's catalogue, in words: one short standing for lists (the
// CLI's `servers`, the Servers screen's badge) and the lines a detail view shows. Both surfaces say the same.
import type { CatalogueView } from './api.js';

/** Trusted by the organization's catalogue, and not untrusted by the person. */
export function organizationTrusts(view: CatalogueView | undefined): boolean {
  return view?.state === 'trusted' && !view.declined;
}

/** "trusted by your organization", "not trusted by your organization: differs from …", or undefined when neither applies. */
export function catalogueStanding(view: CatalogueView | undefined): string | undefined {
  if (!view) return undefined;
  if (view.refused) return 'refused by your organization';
  if (view.state === 'trusted') return view.declined ? 'not trusted by you (your organization trusts it)' : 'trusted by your organization';
  if (view.state === 'mismatch') return `differs from catalogue entry ${view.entry}`;
  return undefined;
}

/** Every line a detail view shows: the entry, each difference, a refusal with the organization's reason. */
export function catalogueLines(view: CatalogueView | undefined): string[] {
  if (!view) return [];
  const lines: string[] = [];
  if (view.state === 'trusted') {
    lines.push(`Trusted by your organization: catalogue entry ${view.entry}.`);
    if (view.declined) lines.push('You chose not to trust it, so its tools ask as an untrusted server’s do. Trust it to lift that.');
  } else if (view.state === 'mismatch') {
    lines.push(`Not trusted by your organization: it differs from catalogue entry ${view.entry}:`);
    lines.push(...(view.differences ?? []).map((d) => `  - ${d}`));
  } else lines.push('Not in your organization’s catalogue.');
  if (!view.contentChecked && view.state !== 'none') lines.push('Its package content is checked when it next starts.');
  if (view.refused) lines.push(`It will not start: ${view.refused}.`);
  return lines;
}
