// The attack, reproduced with real npx and a real `countersign serve`: a server pinned to
// fixture-pkg@1.0.15, then a different fixture-pkg@1.0.15 (other code, same version string) placed in
// the launch folder's node_modules. It is quarantined with both hashes and never serves a call. No
// registry is involved: npx finds the package in the launch folder, as it would a real project's.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PinView, ServerView } from '../../shared/api.js';
import { hashPackageDir } from '../../electron/broker/trust/packages/package-hash.js';
import { configure, connectClient, makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { pinShown, viewOf } from '../helpers/consent.js';
import { FIXTURE_PKG, installFixturePackage } from '../helpers/fixture-package.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe('pins that pin content', () => {
  it('quarantines a same-version package with other content before it starts, showing both hashes', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-pkgswap-')));
    const project = join(root, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), '{"name":"project","private":true}');
    const nodeModules = join(project, 'node_modules');
    const genuine = installFixturePackage(nodeModules);
    const log = join(root, 'fixture.log');
    const dataDir = makeDataDir();
    configure(dataDir, { pkg: { command: 'npx', args: ['-y', `${FIXTURE_PKG}@1.0.15`], cwd: project, env: { FIXTURE_LOG: log } } }, ['pkg']);
    // npx's cache is this test's own (empty): nothing comes from the registry or the person's cache.
    process.env.npm_config_cache = join(root, 'npm-cache');
    const broker = await startServe(dataDir);
    delete process.env.npm_config_cache;
    try {
      // Pinning starts it once (through npx) and fingerprints the copy that ran.
      const pin = await pinShown<PinView>(broker.api, 'pkg');
      expect(pin.package).toEqual({ kind: 'npx', spec: `${FIXTURE_PKG}@1.0.15`, contentHash: await hashPackageDir(genuine), installedAt: genuine });
      expect(readFileSync(log, 'utf8')).toMatch(/^started genuine /);

      // The checked copy runs directly (node on its bin), not through npx's own resolution again.
      const client = await connectClient(broker, 'pkg', 'connect');
      try {
        expect(textOf(await client.callTool({ name: 'whoami', arguments: {} }))).toBe(`genuine ${join(genuine, 'server.mjs')}`);
      } finally {
        await client.close();
      }

      // The swap: same name, same version, other code, where npx looks first.
      const evil = installFixturePackage(nodeModules, 'evil');
      const evilHash = await hashPackageDir(evil);
      for (const via of ['connect', 'http'] as const) {
        const refused = await connectClient(broker, 'pkg', via).then(
          () => undefined,
          (e: Error) => e,
        );
        expect(refused?.message).toContain(
          `Countersign will not start 'pkg': the package it would run (${FIXTURE_PKG}@1.0.15 in ${evil}) has content ${evilHash}, but the pin recorded ${pin.package!.contentHash}`,
        );
      }
      const view: ServerView = await viewOf(broker.api, 'pkg');
      expect(view.status).toBe('quarantined');
      expect(view.quarantine).toEqual([
        `the package it would run (${FIXTURE_PKG}@1.0.15 in ${evil}) has content ${evilHash}, but the pin recorded ${pin.package!.contentHash}`,
      ]);
      // The other copy never ran, so it never served anything.
      expect(readFileSync(log, 'utf8')).not.toContain('evil');
      const entries = await broker.api<Array<{ kind?: string; detail?: string; actor?: string }>>('queryLog', { server: 'pkg' });
      expect(entries.find((e) => e.kind === 'pin' && e.detail?.startsWith('quarantined:'))).toMatchObject({ actor: 'countersign' });
    } finally {
      await broker.stop();
      removeDir(dataDir);
      removeDir(root);
    }
    expect(existsSync(root)).toBe(false);
  });
});
