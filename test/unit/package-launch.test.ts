import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/api.js';
import { SettingsStore } from '../../electron/broker/store/settings-store.js';
import { exactSpec, findPackageLaunch, rewriteLaunch } from '../../electron/broker/trust/package-launch.js';
import { TrustManager } from '../../electron/broker/trust/trust-manager.js';
import { launchApproved } from '../../electron/broker/trust/launch-consent.js';

describe('findPackageLaunch', () => {
  it.each<[string, ServerConfig, { kind: string; name: string; version?: string; exact: boolean; index: number } | undefined]>([
    [
      'npx unversioned',
      { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
      { kind: 'npx', name: '@modelcontextprotocol/server-filesystem', exact: false, index: 1 },
    ],
    ['npx exact', { command: 'npx', args: ['-y', 'mcp-server@1.2.3'] }, { kind: 'npx', name: 'mcp-server', version: '1.2.3', exact: true, index: 1 }],
    ['npx tag', { command: '/usr/bin/npx', args: ['pkg@latest'] }, { kind: 'npx', name: 'pkg', version: 'latest', exact: false, index: 0 }],
    ['npx --package', { command: 'npx', args: ['--package', '@s/p@^2', 'bin-name'] }, { kind: 'npx', name: '@s/p', version: '^2', exact: false, index: 1 }],
    ['uvx', { command: 'uvx', args: ['mcp-server-fetch'] }, { kind: 'uvx', name: 'mcp-server-fetch', exact: false, index: 0 }],
    [
      'uvx pinned',
      { command: 'uvx', args: ['mcp-server-git==0.6.2', '--repository', '.'] },
      { kind: 'uvx', name: 'mcp-server-git', version: '0.6.2', exact: true, index: 0 },
    ],
    [
      'docker tag',
      { command: 'docker', args: ['run', '-i', '--rm', '-e', 'TOKEN', 'ghcr.io/org/server:1'] },
      { kind: 'docker', name: 'ghcr.io/org/server:1', exact: false, index: 5 },
    ],
    [
      'docker digest',
      { command: 'docker', args: ['run', '-i', 'img@sha256:abc'] },
      { kind: 'docker', name: 'img', version: 'sha256:abc', exact: true, index: 2 },
    ],
    ['plain node', { command: 'node', args: ['server.js'] }, undefined],
    ['remote', { url: 'https://example.com/mcp' }, undefined],
  ])('%s', (_name, config, expected) => {
    const found = findPackageLaunch(config);
    if (!expected) expect(found).toBeUndefined();
    else expect(found).toMatchObject(expected);
  });

  it('rewrites only the package argument to the exact spec', () => {
    const config = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] };
    const launch = findPackageLaunch(config)!;
    expect(rewriteLaunch(config, launch, exactSpec(launch, '2026.8.31')).args).toEqual(['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/tmp']);
    const uv = { command: 'uvx', args: ['mcp-server-fetch'] };
    expect(exactSpec(findPackageLaunch(uv)!, '2025.4.7')).toBe('mcp-server-fetch==2025.4.7');
  });
});

describe('TrustManager.pin', () => {
  it('rewrites an unversioned npx launch to the resolved version, shows the rewrite, and keeps consent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-pinunit-'));
    try {
      const { store } = SettingsStore.open({ dataDir: dir });
      const config = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] };
      store.addServer('fs', config);
      const asked: string[] = [];
      const trust = new TrustManager({
        dataDir: dir,
        settings: store,
        record: () => undefined,
        emit: () => undefined,
        warn: () => undefined,
        policyPath: () => undefined,
        resolver: async (launch) => {
          asked.push(launch.name);
          return '2026.8.31';
        },
      });
      trust.onInitialized('fs', { serverInfo: { name: 'secure-filesystem-server', version: '0.2.0' } });
      const { pin, config: rewritten } = await trust.pin('fs', config, [{ name: 'read_file', inputSchema: { type: 'object' } }], 'cli');
      expect(asked).toEqual(['@modelcontextprotocol/server-filesystem']);
      // The copy npx would run from this folder (the checkout's node_modules) is fingerprinted with the pin.
      expect(pin.package).toEqual({
        kind: 'npx',
        spec: '@modelcontextprotocol/server-filesystem@2026.8.31',
        contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        installedAt: join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'server-filesystem'),
      });
      expect(pin.rewrite).toEqual({
        from: ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
        to: ['npx', '-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/tmp'],
      });
      expect(pin.version).toBe('0.2.0');
      expect(launchApproved(rewritten!, trust.store.get('fs'))).toBe(true);
      expect(launchApproved(config, trust.store.get('fs'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
