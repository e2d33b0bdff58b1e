// CI check: fails on any weakened security setting of the desktop app, in the config module, in the
// shell's sources and in the built bundles (a fresh build, and dist/ when it exists).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FuseV1Options } from '@electron/fuses';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCsp, cspProblems } from '../../shared/csp.js';
import { APP_CSP, APP_RESPONSE_HEADERS, FUSES, fuseSettings, WEB_PREFERENCES } from '../../electron/main/security-config.js';
import { fuseConfigFor, type AfterPackContext } from '../../electron/packaging/after-pack.js';
import { buildShell, ROOT } from './build-once.js';

const read = (file: string) => readFileSync(file, 'utf8');
const sources = (dir: string) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `${dir}/${f}`, text: read(path.join(ROOT, dir, f)) }));

/** Settings that must never appear with these values anywhere in the shell. */
const WEAKENED = [
  /contextIsolation\s*:\s*(false|!1)/,
  /sandbox\s*:\s*(false|!1)/,
  /nodeIntegration(InWorker|InSubFrames)?\s*:\s*(true|!0)/,
  /webSecurity\s*:\s*(false|!1)/,
  /webviewTag\s*:\s*(true|!0)/,
  /allowRunningInsecureContent/,
  /experimentalFeatures/,
  /enableBlinkFeatures/,
  /enableRemoteModule/,
  /disable-web-security|ignore-certificate-errors|disable-site-isolation/,
  /setPermission(Request|Check)Handler\(\s*null/,
  /sendSync/,
];

function checkMainBundle(text: string): void {
  for (const pattern of WEAKENED) expect(text, `main bundle matches ${pattern}`).not.toMatch(pattern);
  // One window definition, whose webPreferences are exactly the config's plus the preload path.
  const prefs = text.match(/webPreferences\s*:[^}]*\}/g) ?? [];
  expect(prefs).toHaveLength(1);
  expect(prefs[0]).toMatch(/^webPreferences:\s*\{\s*\.\.\.WEB_PREFERENCES\d*,\s*preload:\s*[\w.]+\s*\}$/);
  const prefsBlock = /var WEB_PREFERENCES\d* = (\{[^}]*\});/.exec(text)?.[1];
  expect(prefsBlock).toBeDefined();
  for (const line of ['contextIsolation: true', 'sandbox: true', 'nodeIntegration: false', 'webSecurity: true']) expect(prefsBlock).toContain(line);

  // The CSP directives in the bundle build a strict policy, equal to the config's.
  const directives = /var (?:APP|UI)_CSP\d* = buildCsp\d*\((\{[\s\S]*?\})\);/.exec(text)?.[1];
  expect(directives, 'APP_CSP directives in the bundle').toBeDefined();
  const parsed = JSON.parse(directives!.replace(/^\s*\/\/.*$/gm, '')) as Record<string, string[]>;
  expect(buildCsp(parsed)).toBe(APP_CSP);
  // 'unsafe-inline'/'unsafe-eval' appear only in the checker's list of forbidden sources.
  const outsideChecker = text.replace(/var FORBIDDEN_SOURCES\d* = \[[^\]]*\];/, '');
  expect(outsideChecker).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(text).toMatch(/"Content-Security-Policy": (?:APP|UI)_CSP/);

  for (const wired of [
    /setPermissionRequestHandler\(denyPermissionRequest\)/,
    /setPermissionCheckHandler\(denyPermissionCheck\)/,
    /setDevicePermissionHandler\(denyPermissionCheck\)/,
    /onBeforeRequest\(/,
    /onHeadersReceived\(/,
    /setWindowOpenHandler\(/,
    /"will-navigate"/,
    /"will-attach-webview"/,
    /registerSchemesAsPrivileged\(/,
    /\.enableSandbox\(\)/,
    /\.requestSingleInstanceLock\(\)/,
    /\.handle\(APP_SCHEME/,
  ]) {
    expect(text, `main bundle wires ${wired}`).toMatch(wired);
  }
}

function checkPreloadBundle(text: string): void {
  expect(text).not.toMatch(/sendSync/);
  expect(text).not.toMatch(/ipcRenderer\.send\(|\.sendTo\(|\.postMessage\(/);
  const exposed = [...text.matchAll(/exposeInMainWorld\(([^)]*)\)/g)].map((m) => m[1]!.replace(/\s+/g, ''));
  expect(exposed).toEqual(['"countersign",api', '"countersignDesktop",desktop']);
  // The only module a sandboxed preload loads is electron.
  const required = [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
  expect(new Set(required)).toEqual(new Set(['electron']));
  expect(text).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer/);
}

describe('security config', () => {
  it('webPreferences are locked down', () => {
    expect(WEB_PREFERENCES).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    });
    const prefs = WEB_PREFERENCES as Record<string, unknown>;
    for (const key of ['allowRunningInsecureContent', 'experimentalFeatures', 'enableBlinkFeatures', 'preload']) expect(prefs[key]).toBeUndefined();
  });

  it('the CSP is strict and sent with every response', () => {
    expect(cspProblems(APP_CSP)).toEqual([]);
    expect(APP_CSP.startsWith("default-src 'none'")).toBe(true);
    expect(APP_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(APP_RESPONSE_HEADERS['Content-Security-Policy']).toBe(APP_CSP);
  });

  it('fuses: no RunAsNode, no NODE_OPTIONS, no --inspect, asar only, asar integrity', () => {
    const release = fuseSettings({ testBuild: false });
    expect(release).toEqual(FUSES);
    expect(release).toMatchObject({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      OnlyLoadAppFromAsar: true,
      EnableEmbeddedAsarIntegrityValidation: true,
      GrantFileProtocolExtraPrivileges: false,
    });
    // Every fuse @electron/fuses knows is set explicitly.
    const known = Object.keys(FuseV1Options).filter((k) => Number.isNaN(Number(k)));
    expect(Object.keys(release).sort()).toEqual(known.sort());
  });

  it('a test build differs only in allowing --inspect', () => {
    const test = fuseSettings({ testBuild: true });
    expect(test).toEqual({ ...FUSES, EnableNodeCliInspectArguments: true });
  });

  it('the afterPack hook maps the settings onto the fuse wire', () => {
    const context: AfterPackContext = {
      appOutDir: '/out',
      electronPlatformName: 'linux',
      arch: 1,
      packager: { appInfo: { productFilename: 'Countersign' }, executableName: 'countersign' },
    };
    const config = fuseConfigFor(context, {}) as unknown as Record<number, boolean>;
    expect(config[FuseV1Options.RunAsNode]).toBe(false);
    expect(config[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false);
    expect(config[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false);
    expect(config[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true);
    expect(config[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true);
    const testConfig = fuseConfigFor(context, { COUNTERSIGN_TEST_BUILD: '1' }) as unknown as Record<number, boolean>;
    expect(testConfig[FuseV1Options.EnableNodeCliInspectArguments]).toBe(true);
    expect(testConfig[FuseV1Options.RunAsNode]).toBe(false);
  });
});

describe('shell sources', () => {
  const all = [...sources('electron/main'), ...sources('electron/preload'), ...sources('electron/ipc')];

  it('no source weakens a setting', () => {
    for (const { file, text } of all) {
      for (const pattern of WEAKENED) expect(text, `${file} matches ${pattern}`).not.toMatch(pattern);
    }
  });

  it('only the shell files import electron; the logic modules and the channel map do not', () => {
    const shell = new Set([
      'electron/main/main.ts',
      'electron/main/entry.ts',
      'electron/main/session.ts',
      'electron/main/window.ts',
      'electron/main/tray-shell.ts',
      'electron/preload/index.ts',
    ]);
    for (const { file, text } of all) {
      const importsElectron = /from 'electron'/.test(text);
      expect(importsElectron, file).toBe(shell.has(file));
    }
  });

  it('one BrowserWindow, built from WEB_PREFERENCES', () => {
    const windows = all.filter(({ text }) => /new BrowserWindow\(/.test(text));
    expect(windows.map((w) => w.file)).toEqual(['electron/main/window.ts']);
    expect(windows[0]!.text).toMatch(/webPreferences: \{ \.\.\.WEB_PREFERENCES, preload: opts\.preload \}/);
  });

  it('IPC: handlers only in the gatekeeper, no ipcMain.on, no sendSync', () => {
    for (const { file, text } of all) {
      if (file !== 'electron/main/gatekeeper.ts') expect(text, file).not.toMatch(/ipcMain\.handle\(|\.handle\(IPC\.|removeHandler\(/);
      expect(text, file).not.toMatch(/ipcMain\.(on|once|addListener)\(/);
    }
  });

  it('electron-builder packs into asar and runs the fuse hook', () => {
    const yml = read(path.join(ROOT, 'electron-builder.yml'));
    expect(yml).toMatch(/^asar: true$/m);
    expect(yml).toMatch(/^afterPack: dist\/packaging\/after-pack\.cjs$/m);
    expect(yml).not.toMatch(/asarUnpack/);
    expect(yml).toMatch(/^\s+main: dist\/electron\/entry\.mjs$/m);
  });
});

describe('built bundles', () => {
  let dir: string;
  beforeAll(() => {
    dir = buildShell();
  }, 60_000);

  it('main process (fresh build)', () => {
    checkMainBundle(read(path.join(dir, 'electron', 'main.mjs')));
  });

  it('preload (fresh build)', () => {
    checkPreloadBundle(read(path.join(dir, 'electron', 'preload.cjs')));
  });

  it('afterPack hook carries the fuse list', () => {
    const hook = read(path.join(dir, 'packaging', 'after-pack.cjs'));
    expect(hook).toMatch(/flipFuses/);
    expect(hook).toMatch(/RunAsNode: false/);
    expect(hook).toMatch(/OnlyLoadAppFromAsar: true/);
  });

  const dist = path.join(ROOT, 'dist', 'electron');
  it.runIf(existsSync(path.join(dist, 'main.mjs')) && existsSync(path.join(dist, 'preload.cjs')))('dist/electron as built by npm run build', () => {
    checkMainBundle(read(path.join(dist, 'main.mjs')));
    checkPreloadBundle(read(path.join(dist, 'preload.cjs')));
  });
});
