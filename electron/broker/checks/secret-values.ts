// Credential-shaped values in a call's arguments, found by the one detector (shared/secrets.ts): a
// finding on the call's card, so a person sees that a token goes to the server with this call. The
// finding never quotes the value, only its kind's public prefix ("ghp_…"); the card shows the
// arguments themselves, with the value marked.
import { escapeControl } from '../../../shared/escape.js';
import type { Finding } from '../../../shared/findings.js';
import { secretShapes } from '../../../shared/secrets.js';
import { SCAN_WINDOW } from './scan/index.js';

const shownKey = (key: string) => `"${escapeControl(key.length > 40 ? `${key.slice(0, 40)}…` : key)}"`;

/**
 * One finding per kind of secret in `text` not already in `found` (which it adds to). Long texts are
 * searched window by window, with `pause` between windows, as the text scan does.
 */
export async function secretValueFindings(text: string, key: string | undefined, found: Set<string>, pause: () => Promise<void> | void): Promise<Finding[]> {
  const out: Finding[] = [];
  for (let at = 0; at < text.length; at += SCAN_WINDOW) {
    for (const m of secretShapes(text, at, Math.min(text.length, at + SCAN_WINDOW))) {
      if (found.has(m.what)) continue;
      found.add(m.what);
      const where = key === undefined ? 'An argument value' : `The argument ${shownKey(key)}`;
      out.push({
        code: 'secret-value',
        severity: 'warning',
        message: `${where} looks like ${m.what}: it goes to the server with this call.`,
        excerpt: escapeControl(m.shown),
      });
    }
    if (at + SCAN_WINDOW < text.length) await pause();
  }
  return out;
}
