// Every security-relevant value of the desktop app in one place. The shell uses these; the CI check
// (test/electron/security.test.ts) imports them and also looks for them in the built bundle.
import type { FuseV1Options } from '@electron/fuses';
import { UI_CSP, UI_SECURITY_HEADERS } from '../../shared/ui-security.js';

/** The app's own origin: a privileged, standard, secure scheme served from dist/renderer by protocol.handle. */
export const APP_SCHEME = 'app';
export const APP_HOST = 'countersign';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/** webPreferences of every window; the shell adds only `preload`. */
export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  webviewTag: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
  spellcheck: false,
} as const;

/**
 * The renderer talks to the broker over IPC only, so nothing outside app:// is ever needed.
 * 'self' is app://countersign. Sent as a response header (see app-protocol.ts and session.ts).
 */
export const APP_CSP = UI_CSP;

/** Response headers for every file the app serves itself. */
export const APP_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  ...UI_SECURITY_HEADERS,
  'Cache-Control': 'no-cache',
};

/** Schemes the window may load anything from; every other request is cancelled. */
export const ALLOWED_REQUEST_SCHEMES: readonly string[] = [`${APP_SCHEME}:`, 'data:', 'blob:', 'devtools:', 'chrome-devtools:'];

export type FuseName = keyof typeof FuseV1Options;

/**
 * Electron fuses, flipped in the packaged binary by the afterPack hook (electron/packaging/after-pack.ts).
 * `satisfies` makes a fuse that @electron/fuses knows but this list lacks a type error.
 */
export const FUSES = {
  RunAsNode: false,
  EnableCookieEncryption: true,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
  LoadBrowserProcessSpecificV8Snapshot: false,
  GrantFileProtocolExtraPrivileges: false,
} as const satisfies Record<FuseName, boolean>;

/** Test builds (COUNTERSIGN_TEST_BUILD=1) keep --inspect, which Playwright's _electron needs; nothing else changes. */
export function fuseSettings(opts: { testBuild: boolean }): Record<FuseName, boolean> {
  return { ...FUSES, EnableNodeCliInspectArguments: opts.testBuild };
}

export function isTestBuild(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.COUNTERSIGN_TEST_BUILD === '1';
}
