// Matching what a server runs against catalogue entries: npx launches (the copy npx would run, hashed
// as pins hash it, and the registry's integrity through the package code's resolver), PyPI (uvx and pipx,
// every file the registry serves for the version), docker digests, and what makes the same files run
// other code (node options before the script, loader variables).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/api.js';
import { catalogueEntrySchema, type CatalogueEntry } from '../../shared/managed-policy-schema.js';
import { gatherLaunchFacts, launchFactsNow } from '../../electron/broker/policy/catalogue-facts.js';
import { matchCatalogue } from '../../electron/broker/policy/catalogue-match.js';
import { hashPackageDir } from '../../electron/broker/trust/packages/package-hash.js';
import { npxSpecDir } from '../../electron/broker/trust/packages/npx-resolution.js';
import type { VersionResolver } from '../../electron/broker/trust/version-resolver.js';
import { FIXTURE_PKG, FIXTURE_VERSION, installFixturePackage } from '../helpers/fixture-package.js';
import { FILESYSTEM_SERVER, NODE } from '../helpers/paths.js';

const entry = (e: unknown): CatalogueEntry => catalogueEntrySchema.parse(e);
const H = (c: string) => c.repeat(64);

let root: string;
let npxCache: string;
let asked: string[];
const registry: Record<string, { version: string; integrity?: string[] }> = {};
const resolver: VersionResolver = async (launch) => {
  asked.push(`${launch.kind} ${launch.name}@${launch.version}`);
  // PyPI's names compare as PEP 503 says.
  const found = registry[`${launch.kind === 'uvx' ? launch.name.replace(/_/g, '-') : launch.name}@${launch.version}`];
  if (!found) throw new Error('the registry has no such version');
  return found;
};

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-catalogue-')));
  npxCache = join(root, '_npx');
  asked = [];
  for (const k of Object.keys(registry)) delete registry[k];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const facts = (config: ServerConfig) => gatherLaunchFacts('s', config, { npxCache, resolver });

describe('npm entries', () => {
  const npx = (): ServerConfig => ({ command: 'npx', args: ['-y', `${FIXTURE_PKG}@${FIXTURE_VERSION}`], cwd: root });

  it("an npx launch matches on the copy npx would run (its content hash) and npm's integrity; other content or integrity is named", async () => {
    const dir = installFixturePackage(join(npxSpecDir(npxCache, `${FIXTURE_PKG}@${FIXTURE_VERSION}`), 'node_modules'));
    const content = await hashPackageDir(dir);
    registry[`${FIXTURE_PKG}@${FIXTURE_VERSION}`] = { version: FIXTURE_VERSION, integrity: ['sha512-Z29vZA=='] };
    const good = entry({
      name: 'fixture',
      source: { npm: { name: FIXTURE_PKG, version: FIXTURE_VERSION, integrity: 'sha512-Z29vZA==', contentHash: content } },
    });
    expect(matchCatalogue([good], await facts(npx()))).toEqual({ kind: 'trusted', entry: 'fixture' });
    expect(asked).toEqual([`npx ${FIXTURE_PKG}@${FIXTURE_VERSION}`]);

    // The same version, other files in npx's copy: the content differs, with both hashes.
    installFixturePackage(join(npxSpecDir(npxCache, `${FIXTURE_PKG}@${FIXTURE_VERSION}`), 'node_modules'), 'evil');
    const swapped = matchCatalogue([good], await facts(npx()));
    expect(swapped).toMatchObject({ kind: 'mismatch', entry: 'fixture' });
    expect(swapped.kind === 'mismatch' && swapped.differences[0]).toMatch(
      new RegExp(`installed content \\(${dir}\\) is sha256:[0-9a-f]{64}, not the reviewed ${content}`),
    );

    registry[`${FIXTURE_PKG}@${FIXTURE_VERSION}`] = { version: FIXTURE_VERSION, integrity: ['sha512-YmFk'] };
    const integrityOnly = entry({ name: 'fixture', source: { npm: { name: FIXTURE_PKG, version: FIXTURE_VERSION, integrity: 'sha512-Z29vZA==' } } });
    expect(matchCatalogue([integrityOnly], await facts(npx()))).toEqual({
      kind: 'mismatch',
      entry: 'fixture',
      differences: [`npm's dist.integrity for ${FIXTURE_PKG}@${FIXTURE_VERSION} is sha512-YmFk, not the reviewed sha512-Z29vZA==`],
    });
  });

  it('a copy npx would fetch now, or a registry that does not answer, is never a match', async () => {
    const e = entry({
      name: 'fixture',
      source: { npm: { name: FIXTURE_PKG, version: FIXTURE_VERSION, integrity: 'sha512-Z29vZA==', contentHash: `sha256:${H('a')}` } },
    });
    const verdict = matchCatalogue([e], await facts(npx()));
    expect(verdict.kind === 'mismatch' && verdict.differences).toEqual([
      `its installed content could not be checked: ${FIXTURE_PKG}@${FIXTURE_VERSION} is not installed where Countersign can check it (npx would fetch it now)`,
      "npm's integrity for it could not be read: the registry has no such version",
    ]);
  });

  it('an unversioned npx launch, or another version, is a mismatch; until checked, content is "not checked yet"', async () => {
    const e = entry({ name: 'fixture', source: { npm: { name: FIXTURE_PKG, version: FIXTURE_VERSION, contentHash: `sha256:${H('a')}` } } });
    const unversioned = matchCatalogue([e], await facts({ command: 'npx', args: ['-y', FIXTURE_PKG] }));
    expect(unversioned.kind === 'mismatch' && unversioned.differences).toEqual([
      `it runs ${FIXTURE_PKG} version (unnamed: whatever npx finds), not the reviewed ${FIXTURE_VERSION}`,
    ]);
    const early = matchCatalogue([e], launchFactsNow('s', npx()));
    expect(early.kind === 'mismatch' && early.differences).toEqual(['its installed content is not checked yet (it is checked when it starts)']);
  });

  it('an installed copy run with node matches by the package that holds the script; an option before the script does not', async () => {
    const reviewed = await gatherLaunchFacts('s', { command: NODE, args: [FILESYSTEM_SERVER, '/data'] }, { npxCache, resolver });
    expect(reviewed.package).toMatchObject({ kind: 'npm', name: '@modelcontextprotocol/server-filesystem', version: '2026.8.31' });
    const e = entry({
      name: 'fs',
      source: { npm: { name: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', contentHash: reviewed.package!.contentHash } },
    });
    expect(matchCatalogue([e], reviewed).kind).toBe('trusted');
    // A package.json can claim any name and version: the registry's integrity says nothing of these files.
    const integrityOnly = entry({
      name: 'fs',
      source: { npm: { name: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', integrity: 'sha512-eA==' } },
    });
    const claimed = matchCatalogue([integrityOnly], { ...reviewed, package: { ...reviewed.package!, integrity: 'sha512-eA==' } });
    expect(claimed.kind === 'mismatch' && claimed.differences).toEqual([
      `it runs an installed copy (${reviewed.package!.where}), which only a contentHash can check, and the entry names none`,
    ]);
    const evil = join(root, 'evil.js');
    writeFileSync(evil, '');
    for (const args of [
      ['--require', evil, FILESYSTEM_SERVER],
      ['--import', FILESYSTEM_SERVER, evil],
      ['-e', 'x', FILESYSTEM_SERVER],
    ]) {
      expect(matchCatalogue([e], await gatherLaunchFacts('s', { command: NODE, args }, { npxCache, resolver })).kind).not.toBe('trusted');
    }
  });

  it('variables that load other code or fetch other packages are a difference, for every kind of entry', async () => {
    const reviewed = entry({ name: 'cmd', source: { command: [NODE, FILESYSTEM_SERVER] } });
    for (const name of ['NODE_OPTIONS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'PYTHONPATH', 'npm_config_registry', 'UV_INDEX_URL', 'DOCKER_HOST', 'PATH']) {
      const verdict = matchCatalogue([reviewed], launchFactsNow('s', { command: NODE, args: [FILESYSTEM_SERVER], env: { [name]: 'x' } }));
      expect(verdict).toEqual({ kind: 'mismatch', entry: 'cmd', differences: [`its environment sets ${name}, which change what code runs`] });
    }
    const passed = launchFactsNow('s', {
      command: NODE,
      args: [FILESYSTEM_SERVER],
      limits: { network: 'none', filesystem: 'host', passEnv: ['NODE_OPTIONS'] },
    });
    expect(matchCatalogue([reviewed], passed).kind).toBe('mismatch');
    expect(matchCatalogue([reviewed], launchFactsNow('s', { command: NODE, args: [FILESYSTEM_SERVER], env: { API_TOKEN: 'x' } })).kind).toBe('trusted');
  });
});

describe('PyPI entries', () => {
  const files = { wheel: H('1'), sdist: H('2') };
  const e = entry({ name: 'fetch', source: { pypi: { name: 'mcp-server-fetch', version: '2025.4.7', sha256: [files.wheel, files.sdist] } } });

  it('uvx and pipx launches of name==version match when every file PyPI serves for it was reviewed', async () => {
    registry['mcp-server-fetch@2025.4.7'] = { version: '2025.4.7', integrity: [`sha256-${files.wheel} a.whl`, `sha256-${files.sdist} a.tar.gz`] };
    for (const config of [
      { command: 'uvx', args: ['mcp-server-fetch==2025.4.7'] },
      { command: 'uvx', args: ['--from', 'mcp_server_fetch==2025.4.7', 'mcp-server-fetch'] },
      { command: 'pipx', args: ['run', 'mcp-server-fetch==2025.4.7'] },
      { command: 'pipx', args: ['run', '--spec', 'mcp-server-fetch==2025.4.7', 'mcp-server-fetch'] },
    ]) {
      expect(matchCatalogue([e], await facts(config))).toEqual({ kind: 'trusted', entry: 'fetch' });
    }
    expect(asked.every((a) => a === 'uvx mcp-server-fetch@2025.4.7' || a === 'uvx mcp_server_fetch@2025.4.7')).toBe(true);
  });

  it('a file added to the release that nobody reviewed, another version, or no version is a mismatch', async () => {
    registry['mcp-server-fetch@2025.4.7'] = { version: '2025.4.7', integrity: [`sha256-${files.wheel} a.whl`, `sha256-${H('9')} b.whl`] };
    const added = matchCatalogue([e], await facts({ command: 'uvx', args: ['mcp-server-fetch==2025.4.7'] }));
    expect(added.kind === 'mismatch' && added.differences).toEqual([
      `PyPI serves files for mcp-server-fetch==2025.4.7 that were not reviewed (sha256 ${H('9')})`,
    ]);
    const other = matchCatalogue([e], await facts({ command: 'uvx', args: ['mcp-server-fetch==2025.4.8'] }));
    expect(other.kind === 'mismatch' && other.differences).toEqual(['it runs mcp-server-fetch version 2025.4.8, not the reviewed 2025.4.7']);
    expect(matchCatalogue([e], await facts({ command: 'uvx', args: ['mcp-server-fetch'] })).kind).toBe('mismatch');
  });
});

describe('docker entries', () => {
  const digest = `sha256:${H('d')}`;
  const e = entry({ name: 'fetch image', source: { docker: { image: 'mcp/fetch', digest } } });

  it('docker run of image@digest matches (a tag beside the digest is only a name); another digest or a bare tag does not', async () => {
    expect(matchCatalogue([e], await facts({ command: 'docker', args: ['run', '-i', '--rm', `mcp/fetch@${digest}`] })).kind).toBe('trusted');
    expect(matchCatalogue([e], await facts({ command: 'docker', args: ['run', '-i', `mcp/fetch:latest@${digest}`] })).kind).toBe('trusted');
    const other = matchCatalogue([e], await facts({ command: 'docker', args: ['run', '-i', `mcp/fetch@sha256:${H('e')}`] }));
    expect(other.kind === 'mismatch' && other.differences).toEqual([`it runs mcp/fetch by digest sha256:${H('e')}, not the reviewed ${digest}`]);
    for (const flag of [['--entrypoint', 'sh'], ['--entrypoint=sh']]) {
      const replaced = matchCatalogue([e], await facts({ command: 'docker', args: ['run', '-i', ...flag, `mcp/fetch@${digest}`] }));
      expect(replaced.kind === 'mismatch' && replaced.differences).toEqual(["it replaces the image's entrypoint (--entrypoint)"]);
    }
    const tag = matchCatalogue([e], await facts({ command: 'docker', args: ['run', '-i', 'mcp/fetch:latest'] }));
    expect(tag.kind === 'mismatch' && tag.differences).toEqual([
      `it runs mcp/fetch:latest without a digest (whatever the tag points to), not the reviewed ${digest}`,
    ]);
  });
});

describe('which entry a server is compared with', () => {
  it('an entry of the same name that names something else says what runs instead; an unrelated server matches nothing', () => {
    const e = entry({ name: 'fs', source: { npm: { name: 'other-pkg', version: '1.0.0', integrity: 'sha512-eA==' } } });
    const verdict = matchCatalogue([e], launchFactsNow('fs', { command: 'node', args: ['/nowhere.js'] }));
    expect(verdict).toEqual({ kind: 'mismatch', entry: 'fs', differences: ['it runs node /nowhere.js, not the npm package other-pkg@1.0.0'] });
    expect(matchCatalogue([e], launchFactsNow('other', { command: 'node', args: ['/nowhere.js'] }))).toEqual({ kind: 'none' });
    expect(matchCatalogue([e], launchFactsNow('fs', { url: 'https://example.com/mcp' })).kind).toBe('mismatch');
  });

  it('a remote server matches by its exact URL; another URL, or a local command, does not', () => {
    const e = entry({ name: 'remote', source: { url: 'https://mcp.example.com/mcp' } });
    expect(matchCatalogue([e], launchFactsNow('r', { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'x' } }))).toEqual({
      kind: 'trusted',
      entry: 'remote',
    });
    expect(matchCatalogue([e], launchFactsNow('remote', { url: 'https://mcp.example.com/mcp/other' }))).toEqual({
      kind: 'mismatch',
      entry: 'remote',
      differences: ['it is the remote server https://mcp.example.com/mcp/other, not the reviewed remote server https://mcp.example.com/mcp'],
    });
    expect(matchCatalogue([e], launchFactsNow('r', { url: 'https://mcp.example.com/mcp/other' })).kind).toBe('none');
  });

  it('the schema takes content hashes as package-hash prints them, and refuses an npm entry with neither hash', () => {
    expect(() => entry({ name: 'x', source: { npm: { name: 'p', version: '1.0.0', contentHash: H('a') } } })).toThrow(/sha256:/);
    expect(() => entry({ name: 'x', source: { npm: { name: 'p', version: '1.0.0' } } })).toThrow(/integrity, contentHash or both/);
  });
});
