// Pure decisions for navigation, new windows, permissions and outgoing requests. The shell only wires
// them to Electron's events, so each rule is tested without Electron.
import { ALLOWED_REQUEST_SCHEMES, APP_HOST, APP_SCHEME } from './security-config.js';
import { parseExternalUrl } from './external-links.js';

/** True for app://countersign/… and nothing else (not another host, not a look-alike scheme). */
export function isAppUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && url.username === '' && url.password === '';
}

export interface NavigationVerdict {
  allow: false;
  /** An http(s) address the person may choose to open in their browser (after confirming). */
  external?: string;
}

/**
 * will-navigate, will-redirect and window.open: the window never leaves the app and never opens
 * another. The UI changes views inside the page, so every real navigation is refused.
 */
export function navigationVerdict(url: string): NavigationVerdict {
  const external = parseExternalUrl(url);
  return external ? { allow: false, external: external.href } : { allow: false };
}

/** setWindowOpenHandler's answer: always deny; a link to the web goes to the browser after a confirm. */
export function windowOpenVerdict(url: string): { action: 'deny'; external?: string } {
  const { external } = navigationVerdict(url);
  return external ? { action: 'deny', external } : { action: 'deny' };
}

/** setPermissionRequestHandler: the UI needs no camera, location, notification or other permission. */
export function denyPermissionRequest(_webContents: unknown, _permission: string, callback: (granted: boolean) => void): void {
  callback(false);
}

/** setPermissionCheckHandler and setDevicePermissionHandler. */
export function denyPermissionCheck(): boolean {
  return false;
}

/** session.webRequest.onBeforeRequest: only the app's own files (and inline data/blobs it made). */
export function isAllowedRequest(raw: string): boolean {
  try {
    return ALLOWED_REQUEST_SCHEMES.includes(new URL(raw).protocol);
  } catch {
    return false;
  }
}

/** Adds the app's headers to a response from onHeadersReceived, replacing any CSP it carried. */
export function withAppHeaders(
  headers: Readonly<Record<string, string | string[]>> | undefined,
  appHeaders: Readonly<Record<string, string>>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const replaced = new Set(Object.keys(appHeaders).map((k) => k.toLowerCase()));
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (replaced.has(name.toLowerCase())) continue;
    out[name] = Array.isArray(value) ? [...value] : [value];
  }
  for (const [name, value] of Object.entries(appHeaders)) out[name] = [value];
  return out;
}
