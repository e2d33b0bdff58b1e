// An npx launch under limits: its exact package installed once before the sandbox (the install in a
// sandbox of its own), then run offline from that folder, read-only, with no network at all.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitsProfile, SandboxSupport } from '../../shared/limits.js';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { NpmPreparer, prepareForLimits } from '../../electron/broker/upstream/sandbox/package-prep.js';
import { StdioUpstream } from '../../electron/broker/upstream/stdio-upstream.js';
import { removeDir } from '../helpers/broker-harness.js';
import { ROOT } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
// The devDependency's own version: `npm ci` left its tarball in npm's cache, so no download is needed.
const VERSION = (JSON.parse(readFileSync(`${ROOT}node_modules/@modelcontextprotocol/server-memory/package.json`, 'utf8')) as { version: string }).version;

describe.skipIf(process.platform !== 'linux')('npx launches under limits', () => {
  let support: SandboxSupport;
  let dir: string;

  beforeAll(async () => {
    support = await detectSandbox();
    expect(support.kind).toBe('bubblewrap');
    dir = mkdtempSync(join(tmpdir(), 'cs-npx-'));
  });

  afterAll(() => removeDir(dir));

  it('installs the pinned package once, then runs it with no network and only its data folder writable', { timeout: 180_000 }, async () => {
    const root = join(dir, 'packages');
    const data = join(dir, 'data');
    mkdirSync(data);
    const preparer = new NpmPreparer({ root, support, cache: join(homedir(), '.npm') });
    const limits: LimitsProfile = { network: 'none', filesystem: { read: [], write: [data] }, passEnv: [] };
    const spec = { command: 'npx', args: ['-y', `@modelcontextprotocol/server-memory@${VERSION}`], env: { MEMORY_FILE_PATH: join(data, 'memory.jsonl') } };
    const upstream = new StdioUpstream(spec, { sandbox: { limits, support, preparer } });
    const client = new Client({ name: 'npx-test', version: '1.0.0' });
    await client.connect(upstream as unknown as Transport);
    try {
      expect(upstream.enforcement).toMatchObject({ sandbox: 'bubblewrap', network: 'enforced', filesystem: 'enforced' });
      const made = (await client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Ann', entityType: 'person', observations: ['likes tea'] }] },
      })) as ToolResult;
      expect(made.isError).toBeFalsy();
      expect(readFileSync(join(data, 'memory.jsonl'), 'utf8')).toContain('likes tea');
    } finally {
      await client.close();
    }
    // Installed in a folder of its own, nothing half-done left beside it.
    expect(readdirSync(root)).toEqual([`@modelcontextprotocol+server-memory@${VERSION}`]);
    // The second start runs what is there: the same command, no install.
    const again = await preparer.prepare(spec, { kind: 'npx', index: 1, name: '@modelcontextprotocol/server-memory', version: VERSION, exact: true });
    expect(again.args?.[0]).toBe(
      join(root, `@modelcontextprotocol+server-memory@${VERSION}`, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js'),
    );
    expect(existsSync(again.args![0]!)).toBe(true);
  });

  it('refuses what it cannot prepare, saying why, and leaves launches without limits alone', async () => {
    const limits: LimitsProfile = { network: 'none', filesystem: 'host', passEnv: [] };
    const preparer = new NpmPreparer({ root: join(dir, 'unused'), support });
    await expect(prepareForLimits({ command: 'npx', args: ['-y', 'some-server'] }, limits, preparer)).rejects.toThrow(
      'pin some-server to an exact version first',
    );
    await expect(prepareForLimits({ command: 'uvx', args: ['mcp-server-fetch==1.0.0'] }, limits, preparer)).rejects.toThrow(
      'a uvx launch cannot run under network or file limits yet',
    );
    await expect(prepareForLimits({ command: 'docker', args: ['run', '-i', 'img@sha256:abc'] }, limits, preparer)).rejects.toThrow('docker');
    const plain = { command: 'npx', args: ['-y', 'some-server'] };
    expect(await prepareForLimits(plain, { ...limits, network: 'unrestricted' }, preparer)).toBe(plain);
    expect(existsSync(join(dir, 'unused'))).toBe(false);
  });
});
