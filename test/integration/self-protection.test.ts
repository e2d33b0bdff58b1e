// Self-protection with the real server-filesystem, through a real `countersign serve` and `connect`:
// an agent holding a trusted filesystem tool, an "always allow" rule for write_file and automatic
// leases still cannot touch Countersign's data folder without the person.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PendingCall } from '../../shared/api.js';
import type { Rule } from '../../shared/decision.js';
import { configure, connectClient, removeDir, startServe } from '../helpers/broker-harness.js';
import { FILESYSTEM_SERVER, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe('self-protection', () => {
  it("asks before a trusted server's write_file touches the data folder, despite an always-allow rule and leases", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-selfprot-')));
    const dataDir = join(root, 'data');
    const files = join(root, 'files');
    mkdirSync(dataDir);
    mkdirSync(files);
    symlinkSync(dataDir, join(files, 'link'));
    // The filesystem server may write anywhere under root, the data folder included (as a home-wide tool would).
    configure(dataDir, { fs: { command: NODE, args: [FILESYSTEM_SERVER, root], cwd: files } }, ['fs']);
    const broker = await startServe(dataDir);
    const settingsFile = join(dataDir, 'settings.json');
    let before = '';
    try {
      const client = await connectClient(broker, 'fs', 'connect');
      try {
        // The person saves "always allow" for write_file.
        const first = client.callTool({ name: 'write_file', arguments: { path: join(files, 'a.txt'), content: 'one' } });
        const asked = await broker.waitForPending((c) => c.tool === 'write_file');
        await broker.api('decide', asked.id, { kind: 'always-allow' });
        await first;
        expect((await broker.api<Rule[]>('listRules')).map((r) => r.tool)).toEqual(['write_file']);
        before = readFileSync(settingsFile, 'utf8'); // with the rule in it
        expect(textOf(await client.callTool({ name: 'write_file', arguments: { path: join(files, 'b.txt'), content: 'two' } }))).toMatch(/Successfully wrote/);
        // A read-only tool of a trusted server runs without asking (and gets a lease in relay mode).
        // The first read marks the client as having read local data; the second gets a lease that lasts.
        for (let i = 0; i < 2; i++) expect(textOf(await client.callTool({ name: 'read_text_file', arguments: { path: join(files, 'a.txt') } }))).toBe('one');

        // Straight after, while `connect` holds a lease for read_text_file: the lease does not cover this.
        const attempts: Array<[string, Record<string, string>]> = [
          ['read_text_file', { path: settingsFile }],
          ['write_file', { path: settingsFile, content: '{"trusted":{"x":true}}' }],
          ['write_file', { path: '../data/trust.json', content: '{}' }],
          ['write_file', { path: join(files, 'link', 'trust.json'), content: '{}' }],
          ['move_file', { source: join(root, 'data'), destination: join(files, 'moved') }],
        ];
        for (const [tool, args] of attempts) {
          const call = client.callTool({ name: tool, arguments: args });
          const pending: PendingCall = await broker.waitForPending((c) => c.tool === tool && JSON.stringify(c.arguments) === JSON.stringify(args));
          expect(pending.reasons[0]).toMatchObject({ code: 'protected-path', severity: 'danger' });
          expect(pending.findings.find((f) => f.code === 'protected-path')?.message).toMatch(/names Countersign's data folder/);
          await broker.api('decide', pending.id, { kind: 'deny', reason: 'not Countersign' });
          const result = (await call) as ToolResult;
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/not Countersign/);
        }
      } finally {
        await client.close();
      }
      expect(readFileSync(settingsFile, 'utf8')).toBe(before);
      expect(readFileSync(join(files, 'b.txt'), 'utf8')).toBe('two');
      const log = await broker.logWhen({ server: 'fs' }, (e) => e.filter((x) => x.decision === 'deny').length >= 5);
      expect(log.filter((e) => e.decision === 'deny').map((e) => [e.tool, e.decidedBy, e.reasons[0]])).toEqual([
        ['read_text_file', 'person', 'protected-path'],
        ['write_file', 'person', 'protected-path'],
        ['write_file', 'person', 'protected-path'],
        ['write_file', 'person', 'protected-path'],
        ['move_file', 'person', 'protected-path'],
      ]);
    } finally {
      await broker.stop();
      removeDir(root);
    }
  });

  it('over HTTP too: the policy file is protected like the data folder', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-selfprot-')));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    const policy = join(root, 'team-policy.json');
    writeFileSync(policy, JSON.stringify({ version: 1 }));
    configure(dataDir, { fs: { command: NODE, args: [FILESYSTEM_SERVER, root] } }, ['fs']);
    process.env.COUNTERSIGN_POLICY = policy;
    const broker = await startServe(dataDir);
    delete process.env.COUNTERSIGN_POLICY;
    try {
      const client = await connectClient(broker, 'fs', 'http');
      try {
        const call = client.callTool({ name: 'read_text_file', arguments: { path: policy } });
        const pending = await broker.waitForPending((c) => c.tool === 'read_text_file');
        expect(pending.findings.find((f) => f.code === 'protected-path')?.message).toMatch(/team policy file/);
        await broker.api('decide', pending.id, { kind: 'allow-once' });
        // Allowed, it reaches the server; where bubblewrap runs it, Countersign's own files are hidden from it.
        if (process.platform === 'linux') expect(textOf(await call)).toMatch(/EACCES|permission denied/i);
        else expect(textOf(await call)).toContain('"version":1');
      } finally {
        await client.close();
      }
    } finally {
      await broker.stop();
      removeDir(root);
    }
  });
});
