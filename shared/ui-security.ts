// The one security policy of the UI, wherever it is served: over loopback HTTP to a browser, or over
// app:// in the desktop app. Our own scripts and styles only, no framing, nothing inline or eval'd.
import { buildCsp } from './csp.js';

export const UI_CSP = buildCsp({
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  // The diff view runs in a module worker built next to the page.
  'worker-src': ["'self'"],
  'manifest-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
});

export const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': UI_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
