// A pinned npx server under limits, through the broker: the first start installs the exact version
// before the sandbox and runs it offline; the pin records that copy's content; every later start checks
// the prepared copy against the pin like npx's own, and a copy with other content is quarantined.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PinView } from '../../shared/api.js';
import type { LimitsProfile } from '../../shared/limits.js';
import { hashPackageDir } from '../../electron/broker/trust/packages/package-hash.js';
import { approveShown, pinShown, viewOf } from '../helpers/consent.js';
import { startInProcess } from '../helpers/in-process.js';
import { removeDir } from '../helpers/broker-harness.js';
import { ROOT } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const PKG = '@modelcontextprotocol/server-memory';
const VERSION = (JSON.parse(readFileSync(`${ROOT}node_modules/${PKG}/package.json`, 'utf8')) as { version: string }).version;

describe.skipIf(process.platform !== 'linux')('a pinned npx package under limits', () => {
  it("is prepared once, pinned to that copy's content, run offline, and quarantined when the copy changes", { timeout: 240_000 }, async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'cs-npx-pin-'));
    const data = join(scratch, 'data');
    mkdirSync(data);
    // An empty npx cache and a launch folder outside any project: npx itself has no copy, only the prepared one.
    let stderr = '';
    const ip = await startInProcess({ npxCache: join(scratch, 'empty-npx'), onServerStderr: (_s, t) => (stderr += t) });
    try {
      const limits: LimitsProfile = { network: 'none', filesystem: { read: [], write: [data] }, passEnv: [] };
      await ip.api.addServer('memory', {
        command: 'npx',
        args: ['-y', `${PKG}@${VERSION}`],
        env: { MEMORY_FILE_PATH: join(data, 'memory.jsonl') },
        cwd: data,
        limits,
      });
      await approveShown(ip.call, 'memory');
      const pin = await pinShown<PinView>(ip.call, 'memory');
      const prepared = join(ip.dataDir, 'packages', `${PKG.replace('/', '+')}@${VERSION}`, 'node_modules', ...PKG.split('/'));
      expect(pin.package).toMatchObject({ kind: 'npx', spec: `${PKG}@${VERSION}`, installedAt: prepared });
      // The same files as the copy npm ci installed from the same tarball.
      expect(pin.package!.contentHash).toBe(await hashPackageDir(`${ROOT}node_modules/${PKG}`));

      const client = await ip.connect('memory');
      const making = client.callTool({
        name: 'create_entities',
        arguments: { entities: [{ name: 'Ann', entityType: 'person', observations: ['likes tea'] }] },
      });
      await ip.api.decide((await ip.waitForPending((c) => c.tool === 'create_entities', 10_000)).id, { kind: 'allow-once' });
      const made = (await making) as ToolResult;
      expect(stderr).not.toMatch(/npm (ERR|error)/);
      expect(made.isError).toBeFalsy();
      expect(readFileSync(join(data, 'memory.jsonl'), 'utf8')).toContain('likes tea');
      expect((await viewOf(ip.call, 'memory')).limits!.running).toMatchObject({ badge: `no network · writes ${data} (enforced)` });
      await client.close();

      // Someone changes the prepared copy: the next start is refused and the server quarantined.
      appendFileSync(join(prepared, 'package.json'), '\n');
      await expect(ip.connect('memory')).rejects.toThrow(/prepared for its sandbox .* has content sha256:[0-9a-f]+, but the pin recorded sha256:/);
      expect((await viewOf(ip.call, 'memory')).quarantine?.[0]).toMatch(/^the package prepared for its sandbox/);
    } finally {
      await ip.close();
      removeDir(scratch);
    }
  });
});
