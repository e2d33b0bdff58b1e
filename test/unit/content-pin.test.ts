// Pins that pin content: which copy npx would run, its fingerprint, and the check before a start.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPinnedLaunch, installedForPin } from '../../electron/broker/trust/packages/package-check.js';
import { hashPackageDir } from '../../electron/broker/trust/packages/package-hash.js';
import { findNpxPackage, npxSpecDir } from '../../electron/broker/trust/packages/npx-resolution.js';
import { FIXTURE_PKG, installFixturePackage } from '../helpers/fixture-package.js';

let root: string;
let project: string;
let npxCache: string;
const ctx = () => ({ npxCache, node: '/usr/bin/node-for-test' });
const SPEC = `${FIXTURE_PKG}@1.0.15`;
const config = () => ({ command: 'npx', args: ['-y', SPEC, '--root', '/data'], cwd: project, env: { A: '1' } });

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-content-')));
  project = join(root, 'project');
  npxCache = join(root, 'npm-cache', '_npx');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), '{"name":"project","private":true}');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('content fingerprints', () => {
  it('same files give the same hash wherever installed; one changed byte or mode changes it; dependencies do not count', async () => {
    const a = installFixturePackage(join(root, 'a', 'node_modules'));
    const b = installFixturePackage(join(root, 'b', 'node_modules'));
    expect(await hashPackageDir(a)).toBe(await hashPackageDir(b));
    mkdirSync(join(b, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(b, 'node_modules', 'dep', 'index.js'), 'x');
    expect(await hashPackageDir(b)).toBe(await hashPackageDir(a));
    const evil = installFixturePackage(join(root, 'c', 'node_modules'), 'evil');
    expect(await hashPackageDir(evil)).not.toBe(await hashPackageDir(a));
    expect(await hashPackageDir(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('which copy npx would run', () => {
  it("prefers the launch folder's project, then npx's cache folder for that exact spec", () => {
    const cached = installFixturePackage(join(npxSpecDir(npxCache, SPEC), 'node_modules'));
    expect(findNpxPackage(FIXTURE_PKG, '1.0.15', SPEC, { cwd: join(project, 'src'), npxCache })).toMatchObject({
      dir: cached,
      source: 'npx-cache',
      bin: join(cached, 'server.mjs'),
    });
    const local = installFixturePackage(join(project, 'node_modules'), 'evil');
    expect(findNpxPackage(FIXTURE_PKG, '1.0.15', SPEC, { cwd: project, npxCache })).toMatchObject({ dir: local, source: 'launch-folder' });
    // Another version in the project is not what npx runs for this spec.
    expect(findNpxPackage(FIXTURE_PKG, '1.0.16', `${FIXTURE_PKG}@1.0.16`, { cwd: project, npxCache })).toBeUndefined();
  });
});

describe('the check before a pinned package starts', () => {
  it('quarantines the same version with other content in the launch folder, with both hashes', async () => {
    const genuine = installFixturePackage(join(npxSpecDir(npxCache, SPEC), 'node_modules'));
    const pinned = { kind: 'npx' as const, spec: SPEC, contentHash: await hashPackageDir(genuine) };
    const evil = installFixturePackage(join(project, 'node_modules'), 'evil');
    const check = await checkPinnedLaunch('pkg', config(), pinned, ctx());
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.quarantine).toBe(
      `the package it would run (${SPEC} in ${evil}) has content ${await hashPackageDir(evil)}, but the pin recorded ${pinned.contentHash}`,
    );
    expect(check.why).toMatch(/^Countersign will not start 'pkg': /);
  });

  it('runs the checked copy directly: node on its bin, with the server arguments, env and folder', async () => {
    const genuine = installFixturePackage(join(npxSpecDir(npxCache, SPEC), 'node_modules'));
    const pinned = { kind: 'npx' as const, spec: SPEC, contentHash: await hashPackageDir(genuine) };
    const check = await checkPinnedLaunch('pkg', config(), pinned, ctx());
    expect(check).toMatchObject({
      ok: true,
      spec: { command: '/usr/bin/node-for-test', args: [join(genuine, 'server.mjs'), '--root', '/data'], cwd: project, env: { A: '1' } },
    });
  });

  it('uses a matching copy npx cached under another spec, and refuses when none can be checked', async () => {
    const pinned = { kind: 'npx' as const, spec: SPEC, contentHash: await hashPackageDir(installFixturePackage(join(root, 'ref', 'node_modules'))) };
    const refused = await checkPinnedLaunch('pkg', config(), pinned, ctx());
    expect(refused).toMatchObject({ ok: false, why: expect.stringMatching(/not installed where Countersign can check it.*unpin the server and pin it again/) });
    expect((refused as { quarantine?: string }).quarantine).toBeUndefined();
    const other = installFixturePackage(join(npxSpecDir(npxCache, FIXTURE_PKG), 'node_modules'));
    expect(await checkPinnedLaunch('pkg', config(), pinned, ctx())).toMatchObject({ ok: true, checked: { dir: other } });
  });

  it('quarantines a command that no longer names the pinned package', async () => {
    const pinned = { kind: 'npx' as const, spec: `${FIXTURE_PKG}@1.0.14`, contentHash: 'sha256:x' };
    expect(await checkPinnedLaunch('pkg', config(), pinned, ctx())).toMatchObject({
      ok: false,
      quarantine: `its command no longer runs the pinned package ${FIXTURE_PKG}@1.0.14`,
    });
  });

  it('leaves unpinned and non-npx servers alone', async () => {
    expect(await checkPinnedLaunch('pkg', config(), undefined, ctx())).toEqual({ ok: true, spec: config() });
    const uvx = { command: 'uvx', args: ['mcp-server-fetch==1.0'] };
    expect(await checkPinnedLaunch('pkg', uvx, { kind: 'uvx', spec: 'mcp-server-fetch==1.0' }, ctx())).toEqual({ ok: true, spec: uvx });
  });

  it('at pin time, finds the copy that ran: after a rewrite, the one npx installed for the unversioned spec', async () => {
    const ran = installFixturePackage(join(npxSpecDir(npxCache, FIXTURE_PKG), 'node_modules'));
    const before = { command: 'npx', args: ['-y', FIXTURE_PKG], cwd: root };
    const after = { command: 'npx', args: ['-y', SPEC], cwd: root };
    expect(await installedForPin(after, before, ctx())).toMatchObject({ dir: ran, contentHash: await hashPackageDir(ran) });
  });
});
