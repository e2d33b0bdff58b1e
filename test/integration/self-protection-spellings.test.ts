// Issue 21, points 6 and 8, through a real `countersign serve` and real clients (`connect`, with its
// leases, and HTTP): the real server-filesystem, given the home folder as a guarded agent's tool would
// be, and trusted with "always allow" rules, never reads or writes Countersign's files by a relative,
// encoded or aliased name without the person; and a shell tool never runs Countersign's own CLI.
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PendingCall } from '../../shared/api.js';
import { vaultId } from '../../electron/broker/store/key-vault.js';
import { configure, connectClient, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
type Client = Awaited<ReturnType<typeof connectClient>>;
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The call either waits for the person (then it is denied, and must not have run) or runs: which came
 * first. A call that ran on the old code answers at once, so no wait on a clock decides this.
 */
async function askedOrRan(broker: TestBroker, client: Client, tool: string, args: Record<string, unknown>): Promise<'asked' | { ran: string }> {
  const call = client.callTool({ name: tool, arguments: args });
  const stop = new AbortController();
  const pending = (async (): Promise<PendingCall | undefined> => {
    while (!stop.signal.aborted) {
      const found = (await broker.api<PendingCall[]>('listPending')).find((c) => c.tool === tool && same(c.arguments, args));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  })();
  const first = await Promise.race([call.then((r) => ({ ran: textOf(r) })), pending]);
  stop.abort();
  if (!first || 'ran' in first) return first ?? { ran: '' };
  await broker.api('decide', first.id, { kind: 'deny', reason: 'not that' });
  const result = (await call) as ToolResult;
  expect(result.isError).toBe(true);
  // Asked, and for self-protection: the card leads with it.
  if (first.reasons[0]?.code !== 'protected-path' || !first.findings.some((f) => f.code === 'protected-path')) {
    return { ran: `asked, but for ${first.reasons.map((r) => r.code).join(', ')}` };
  }
  return 'asked';
}

/** Answers the first call of `tool` with "always allow", so later ones run unasked unless self-protection stops them. */
async function alwaysAllow(broker: TestBroker, client: Client, tool: string, args: Record<string, unknown>): Promise<void> {
  const call = client.callTool({ name: tool, arguments: args });
  const asked = await broker.waitForPending((c) => c.tool === tool);
  await broker.api('decide', asked.id, { kind: 'always-allow' });
  expect(((await call) as ToolResult).isError).toBeFalsy();
}

describe('self-protection: every spelling of a protected path, with the real server-filesystem', () => {
  it.each(['connect', 'http'] as const)('via %s', async (via) => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-spellings-')));
    const home = join(root, 'home');
    const dataDir = join(home, '.config', 'Countersign');
    const keyDir = join(home, '.local', 'state', 'countersign-keys');
    const project = join(home, 'project');
    const policy = join(home, 'Caf\u00e9', 'policy.json');
    for (const d of [dataDir, keyDir, project, join(home, 'Caf\u00e9')]) mkdirSync(d, { recursive: true });
    writeFileSync(policy, JSON.stringify({ version: 1 }));
    writeFileSync(join(project, 'a.txt'), 'plain');
    const keyEnv = process.env.COUNTERSIGN_KEY_DIR;
    process.env.COUNTERSIGN_KEY_DIR = keyDir;
    let broker: TestBroker | undefined;
    try {
      // As a home-wide filesystem tool: started in a project, allowed the whole home folder.
      configure(dataDir, { fs: { command: NODE, args: [FILESYSTEM_SERVER, home], cwd: project } }, ['fs']);
      broker = await startServe(dataDir, [], { HOME: home, COUNTERSIGN_KEY_DIR: keyDir, COUNTERSIGN_POLICY: policy });
      const key = join(keyDir, `${vaultId(dataDir)}.key.json`);
      const token = join(dataDir, 'mcp-token');
      // Another name for the token, in the project: a hard link.
      linkSync(token, join(project, 'notes.txt'));
      const client = await connectClient(broker, 'fs', via);
      try {
        // The person lets every write tool run without asking; reads of a trusted server run anyway.
        await alwaysAllow(broker, client, 'write_file', { path: join(project, 'b.txt'), content: 'b' });
        await alwaysAllow(broker, client, 'edit_file', { path: join(project, 'b.txt'), edits: [{ oldText: 'b', newText: 'c' }] });
        await alwaysAllow(broker, client, 'create_directory', { path: join(project, 'sub') });
        await alwaysAllow(broker, client, 'move_file', { source: join(project, 'b.txt'), destination: join(project, 'sub', 'b.txt') });
        // Reads run unasked: the first marks local data read, the next is decided under a lease in `connect`.
        for (let i = 0; i < 2; i++)
          expect(textOf(await client.callTool({ name: 'read_text_file', arguments: { path: join(project, 'a.txt') } }))).toBe('plain');

        const keyRel = `.local/state/countersign-keys/${vaultId(dataDir)}.key.json`;
        const spellings: Array<[string, Record<string, unknown>]> = [
          // The issue's own: relative to the folder server-filesystem was given, not to its cwd.
          ['read_text_file', { path: keyRel }],
          ['read_text_file', { path: '.config/Countersign/mcp-token' }],
          ['read_text_file', { path: './.config/Countersign/mcp-token' }],
          ['read_text_file', { path: 'project/../.config/Countersign/mcp-token' }],
          ['read_text_file', { path: '.config//Countersign/./mcp-token' }],
          ['read_text_file', { path: '%2Econfig%2FCountersign%2Fmcp-token' }],
          ['read_text_file', { path: '.config\\Countersign\\mcp-token' }],
          ['read_text_file', { path: `file://localhost${token}` }],
          ['read_text_file', { path: `file://${token.replace(/\//g, '%2F')}` }],
          ['read_text_file', { path: 'Cafe\u0301/policy.json' }],
          ['read_text_file', { path: 'project/notes.txt' }],
          ['read_multiple_files', { paths: [join(project, 'a.txt'), '.config/Countersign/settings.json'] }],
          ['list_directory', { path: '.config/Countersign' }],
          ['directory_tree', { path: '.config/Countersign' }],
          ['search_files', { path: '.config/Countersign', pattern: '*' }],
          ['get_file_info', { path: keyRel }],
          ['write_file', { path: '.config/Countersign/settings.json', content: '{}' }],
          ['write_file', { path: keyRel, content: '{}' }],
          ['edit_file', { path: 'project/notes.txt', edits: [{ oldText: 'x', newText: 'y' }] }],
          ['create_directory', { path: '.config/Countersign/extra' }],
          ['move_file', { source: '.config/Countersign', destination: 'project/moved' }],
          ['move_file', { source: 'project/a.txt', destination: '.config/Countersign/trust.json' }],
        ];
        const ran: string[] = [];
        for (const [tool, args] of spellings) {
          const outcome = await askedOrRan(broker, client, tool, args);
          if (outcome !== 'asked') ran.push(`${tool} ${JSON.stringify(args)} ran: ${outcome.ran.slice(0, 120)}`);
        }
        expect(ran).toEqual([]);
      } finally {
        await client.close();
      }
      // Nothing of Countersign's changed, and every refusal is in the log.
      expect(readFileSync(key, 'utf8')).toMatch(/"key"/);
      expect(readFileSync(join(dataDir, 'mcp-token'), 'utf8')).toBe(broker.mcpToken);
      const log = await broker.logWhen({ server: 'fs' }, (e) => e.filter((x) => x.decision === 'deny').length >= 22);
      expect(log.filter((e) => e.decision === 'deny' && e.reasons[0] === 'protected-path')).toHaveLength(22);
    } finally {
      await broker?.stop();
      if (keyEnv === undefined) delete process.env.COUNTERSIGN_KEY_DIR;
      else process.env.COUNTERSIGN_KEY_DIR = keyEnv;
      removeDir(root);
    }
  });
});

describe("self-protection: a shell tool that runs Countersign's own CLI", () => {
  it.each(['connect', 'http'] as const)('via %s', async (via) => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-shell-')));
    const dataDir = join(root, 'data');
    const record = join(root, 'ran.jsonl');
    mkdirSync(dataDir);
    let broker: TestBroker | undefined;
    try {
      configure(dataDir, { shell: { command: NODE, args: [FIXTURE, 'shell', record], cwd: root } }, ['shell']);
      broker = await startServe(dataDir);
      const client = await connectClient(broker, 'shell', via);
      try {
        await alwaysAllow(broker, client, 'run_command', { command: 'ls -la' });
        expect(textOf(await client.callTool({ name: 'run_command', arguments: { command: 'git status' } }))).toBe('ran git status');
        const cli = join(process.cwd(), 'bin', 'countersign.mjs');
        const attempts: Array<Record<string, unknown>> = [
          { command: 'countersign servers approve evil' },
          { command: `COUNTERSIGN_HOME=${dataDir} countersign servers trust evil --yes` },
          { command: "sh -c 'countersign servers approve evil'" },
          { command: 'npx -y countersign@latest servers approve evil' },
          { command: `node ${cli} servers approve evil` },
          { command: '/opt/Countersign/countersign --cli servers approve evil' },
          { command: 'countersign', args: ['servers', 'approve', 'evil'] },
          { command: 'node', args: [cli, 'wrap', 'cursor', '--yes'] },
          { command: 'c\\ountersign servers approve evil' },
          { command: 'cd /tmp && env X=1 countersign --data-dir /x rules' },
        ];
        const ran: string[] = [];
        for (const args of attempts) {
          const outcome = await askedOrRan(broker, client, 'run_command', args);
          if (outcome !== 'asked') ran.push(JSON.stringify(args));
        }
        expect(ran).toEqual([]);
        const pending = client.callTool({ name: 'run_command', arguments: { command: 'countersign log --json' } });
        const card = await broker.waitForPending((c) => c.tool === 'run_command');
        expect(card.findings.find((f) => f.code === 'protected-path')?.message).toMatch(/runs Countersign's command line/);
        await broker.api('decide', card.id, { kind: 'deny' });
        await pending;
      } finally {
        await client.close();
      }
      // Only the two ordinary commands reached the server.
      expect(
        readFileSync(record, 'utf8')
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { command: string }).command),
      ).toEqual(['ls -la', 'git status']);
    } finally {
      await broker?.stop();
      removeDir(root);
    }
  });
});
