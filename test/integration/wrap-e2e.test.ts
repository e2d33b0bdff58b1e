// End to end, as a person would: a home folder with a client's config, `countersign wrap <client> --yes`
// (the real CLI, talking to a running `countersign serve`), then the rewritten entry's exact command and
// args started the way the client starts it, with a real SDK client. A write_file waits for Approve.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseJsonc } from '../../electron/broker/clients/json-format.js';
import { makeDataDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { approveShown } from '../helpers/consent.js';
import { CLI, FILESYSTEM_SERVER, NODE } from '../helpers/paths.js';

const run = promisify(execFile);
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Scenario {
  client: 'claude-desktop' | 'vscode' | 'zed' | 'goose' | 'kiro';
  file: string;
  config(scratch: string): string;
  /** The file's entries, as the command and args the client starts. */
  entries(text: string): Record<string, { command: string; args: string[] }>;
  /** Text the wrap must keep (comments, the client's own keys). */
  kept?: string[];
}

type Launch = { command: string; args: string[] };
const q = JSON.stringify;

const SCENARIOS: Scenario[] = [
  {
    client: 'claude-desktop',
    file: '.config/Claude/claude_desktop_config.json',
    config: (scratch) => JSON.stringify({ globalShortcut: '', mcpServers: { files: { command: NODE, args: [FILESYSTEM_SERVER, scratch] } } }, null, 2),
    entries: (text) => (parseJsonc(text) as { mcpServers: Record<string, Launch> }).mcpServers,
  },
  {
    client: 'vscode',
    file: '.config/Code/User/mcp.json',
    config: (scratch) => `{
  // My servers (VS Code reads comments and trailing commas)
  "servers": {
    "files": {
      "type": "stdio", /* started by VS Code */
      "command": ${JSON.stringify(NODE)},
      "args": [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(scratch)}],
    },
  },
}
`,
    entries: (text) => (parseJsonc(text) as { servers: Record<string, Launch> }).servers,
    kept: ['// My servers (VS Code reads comments and trailing commas)', '/* started by VS Code */'],
  },
  {
    // JSONC: Zed's settings.json, its servers under context_servers.
    client: 'zed',
    file: '.config/zed/settings.json',
    config: (scratch) => `// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "files": {
      "source": "custom",
      "command": ${q(NODE)},
      "args": [${q(FILESYSTEM_SERVER)}, ${q(scratch)}], // the scratch folder
    },
  },
}
`,
    entries: (text) => (parseJsonc(text) as { context_servers: Record<string, Launch> }).context_servers,
    kept: ['// Zed settings', '"theme": "One Dark"', '"source": "custom"'],
  },
  {
    // YAML: goose's config.yaml, its servers under extensions, started with cmd and args.
    client: 'goose',
    file: '.config/goose/config.yaml',
    config: (scratch) => `# goose settings
GOOSE_PROVIDER: anthropic
extensions:
  files:
    args:
      - ${q(FILESYSTEM_SERVER)}
      - ${q(scratch)}
    bundled: null
    cmd: ${q(NODE)} # node from this machine
    enabled: true
    env_keys: []
    envs: {}
    name: files
    timeout: 300
    type: stdio
`,
    entries: (text) =>
      Object.fromEntries(
        Object.entries((parseYaml(text) as { extensions: Record<string, { cmd: string; args: string[] }> }).extensions).map(([name, e]) => [
          name,
          { command: e.cmd, args: e.args },
        ]),
      ),
    kept: ['# goose settings', 'GOOSE_PROVIDER: anthropic', 'timeout: 300'],
  },
  {
    // JSON: Kiro's ~/.kiro/settings/mcp.json.
    client: 'kiro',
    file: '.kiro/settings/mcp.json',
    config: (scratch) =>
      JSON.stringify({ mcpServers: { files: { command: NODE, args: [FILESYSTEM_SERVER, scratch], disabled: false, autoApprove: [] } } }, null, 2),
    entries: (text) => (parseJsonc(text) as { mcpServers: Record<string, Launch> }).mcpServers,
    kept: ['"autoApprove": []'],
  },
];

async function world(s: Scenario) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-wrap-e2e-')));
  const home = join(root, 'home');
  const scratch = join(root, 'files');
  mkdirSync(scratch, { recursive: true });
  const file = join(home, s.file);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, s.config(scratch));
  const dataDir = makeDataDir();
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => rmSync(dataDir, { recursive: true, force: true }),
  );
  const broker = await startServe(dataDir, [], { HOME: home, XDG_CONFIG_HOME: '' });
  cleanups.push(() => broker.stop());
  return { home, scratch, file, dataDir, broker };
}

async function heldUntilApproved(broker: TestBroker, entry: { command: string; args: string[] }, scratch: string): Promise<void> {
  // Started exactly as the client would: its command and args, nothing else.
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, stderr: 'pipe' });
  const client = new Client({ name: 'wrapped-client', version: '1.0.0' });
  cleanups.push(() => client.close());
  await client.connect(transport);
  const target = join(scratch, 'note.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'written after Approve' } });
  const pending = await broker.waitForPending((c) => c.tool === 'write_file');
  expect(pending.server).toBe('files');
  await new Promise((r) => setTimeout(r, 300));
  expect(existsSync(target)).toBe(false);
  expect(await broker.api('decide', pending.id, { kind: 'allow-once' })).toMatchObject({ ok: true, forwarded: true });
  const result = (await call) as { isError?: boolean };
  expect(result.isError).toBeFalsy();
  expect(readFileSync(target, 'utf8')).toBe('written after Approve');
}

describe.each(SCENARIOS)('wrap $client end to end', (s) => {
  it('the wrapped entry starts through Countersign, and write_file waits for Approve', async () => {
    const { home, scratch, file, dataDir, broker } = await world(s);
    const before = readFileSync(file, 'utf8');
    const wrapped = await run(NODE, [CLI, 'wrap', s.client, '--yes', '--data-dir', dataDir], {
      cwd: home,
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '' },
    });
    expect(wrapped.stdout).toContain(`Wrapped files in ${file}`);
    expect(wrapped.stdout).toContain('countersign servers approve files');
    expect(wrapped.stdout).toContain(`To undo: countersign unwrap ${s.client}`);
    const after = readFileSync(file, 'utf8');
    for (const text of s.kept ?? []) expect(after).toContain(text);
    const entry = s.entries(after).files!;
    expect(entry.command).toBe(NODE);
    expect(entry.args.slice(1)).toEqual(['connect', 'files', '--client', s.client, '--data-dir', dataDir]);

    // The new server is untrusted and its launch waits for consent: the person approves it first.
    const [view] = await broker.api<Array<{ name: string; status: string; trusted: boolean }>>('listServers');
    expect(view).toMatchObject({ name: 'files', status: 'needs-consent', trusted: false });
    await approveShown(broker.api, 'files');
    await heldUntilApproved(broker, entry, scratch);

    // The wrap is in the audit log.
    const log = await broker.api<Array<{ kind?: string; tool: string; status: string }>>('queryLog', {});
    expect(log.filter((e) => e.kind === 'client').map((e) => [e.tool, e.status])).toEqual([['wrap', 'ok']]);

    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '' };
    const preview = await run(NODE, [CLI, 'unwrap', s.client, '--dry-run', '--data-dir', dataDir], { cwd: home, env });
    const plan = /plan hash ([0-9a-f]{64})/.exec(preview.stdout)![1]!;
    const undone = await run(NODE, [CLI, 'unwrap', s.client, '--yes', '--hash', plan, '--data-dir', dataDir], { cwd: home, env });
    expect(undone.stdout).toContain('back to its exact bytes from before the wrap');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
