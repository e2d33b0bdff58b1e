// Shell: applies the pure guards to Electron's session, protocol and webContents. No decisions here.
import { readFile } from 'node:fs/promises';
import type { Protocol, Session, WebContents } from 'electron';
import { serveAppRequest } from './app-protocol.js';
import { denyPermissionCheck, denyPermissionRequest, isAllowedRequest, navigationVerdict, windowOpenVerdict, withAppHeaders } from './guards.js';
import { APP_RESPONSE_HEADERS, APP_SCHEME } from './security-config.js';

/** No permissions, no requests outside the app's own files, and the app's CSP on every response. */
export function hardenSession(ses: Session): void {
  ses.setPermissionRequestHandler(denyPermissionRequest);
  ses.setPermissionCheckHandler(denyPermissionCheck);
  ses.setDevicePermissionHandler(denyPermissionCheck);
  ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequest(details.url) }));
  ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withAppHeaders(details.responseHeaders, APP_RESPONSE_HEADERS) }));
}

/** Serves dist/renderer at app://countersign/ (the scheme is registered as privileged before 'ready'). */
export function registerAppProtocol(protocol: Protocol, rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const res = await serveAppRequest({ url: request.url, method: request.method }, rendererDir, async (file) => new Uint8Array(await readFile(file)));
    const body = request.method === 'HEAD' || res.status === 405 ? null : res.body;
    return new Response(body, { status: res.status, headers: res.headers });
  });
}

/** Every webContents (the window and anything it might create) stays on the app's page. */
export function guardWebContents(contents: WebContents, openExternal: (url: string) => unknown): void {
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    const { external } = navigationVerdict(event.url);
    if (external) void openExternal(external);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const verdict = windowOpenVerdict(url);
    if (verdict.external) void openExternal(verdict.external);
    return { action: 'deny' };
  });
}
