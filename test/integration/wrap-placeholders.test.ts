// `${…}` variables a client fills when it starts a server (VS Code's `${input:…}` and `${workspaceFolder}`,
// Cursor's `${workspaceFolder}` and `${env:…}`), end to end: the real CLI wraps the client's file keeping
// them, then the real `countersign connect` is started with the values the client would expand, reaching
// a real server-filesystem rooted at that folder, after the person approved that exact command line. A
// `connect` started by hand with another value waits for approval; a value for an undeclared placeholder
// is refused; a secret typed into a prompt is in no log and no file of the data dir.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry, LaunchRequest, ServerView } from '../../shared/api.js';
import { parseJsonc } from '../../electron/broker/clients/json-format.js';
import { makeDataDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { CLI, FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';

const run = promisify(execFile);
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

type Entry = { command: string; args: string[]; env?: Record<string, string> };
const SECRET = 'typed-into-the-prompt-5f2c9a';

interface Scenario {
  client: 'vscode' | 'cursor';
  file: string;
  container: string;
  config: string;
  /** What the client fills in at launch, by placeholder. */
  values(folder: string): Record<string, string>;
  /** The env of the client's own process (for `${env:…}`). */
  clientEnv?: Record<string, string>;
  /** The placeholders the wrapped entry passes to connect. */
  fills: string[];
}

const q = JSON.stringify;
const SCENARIOS: Scenario[] = [
  {
    client: 'vscode',
    file: '.config/Code/User/mcp.json',
    container: 'servers',
    config: `{
  "inputs": [{ "type": "promptString", "id": "api-key", "description": "API key", "password": true }],
  "servers": {
    "files": {
      "type": "stdio",
      "command": ${q(NODE)},
      "args": [${q(FILESYSTEM_SERVER)}, "\${workspaceFolder}"],
      "env": { "API_KEY": "\${input:api-key}" }, // asked once by VS Code
    },
  },
}
`,
    values: (folder) => ({ workspaceFolder: folder, 'input:api-key': SECRET }),
    fills: ['input:api-key', 'workspaceFolder'],
  },
  {
    client: 'cursor',
    file: '.cursor/mcp.json',
    container: 'mcpServers',
    config: `{
  "mcpServers": {
    "files": {
      "command": ${q(NODE)},
      "args": [${q(FILESYSTEM_SERVER)}, "\${workspaceFolder}"],
      "env": { "API_KEY": "\${env:MY_KEY}" }
    },
    "asks": { "command": ${q(NODE)}, "args": [${q(FILESYSTEM_SERVER)}, "\${input:folder}"] }
  }
}
`,
    values: (folder) => ({ workspaceFolder: folder, 'env:MY_KEY': SECRET }),
    fills: ['env:MY_KEY', 'workspaceFolder'],
  },
];

/** Expands the entry as the client does: each `${name}` it knows, in args and env values. */
function expand(entry: Entry, values: Record<string, string>): Entry {
  const fill = (t: string) => t.replace(/\$\{([^}]*)\}/g, (whole, name: string) => values[name] ?? whole);
  return { command: fill(entry.command), args: entry.args.map(fill), env: Object.fromEntries(Object.entries(entry.env ?? {}).map(([k, v]) => [k, fill(v)])) };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    const s = statSync(p);
    return s.isDirectory() ? filesUnder(p) : s.isFile() ? [p] : [];
  });
}

async function start(entry: Entry, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...env, ...entry.env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'placeholder-client', version: '1.0.0' });
  cleanups.push(() => client.close());
  try {
    await client.connect(transport);
  } catch (err) {
    // connect's own sentence (why Countersign refused), once the process has ended.
    await new Promise<void>((resolve) => (transport.pid === null ? resolve() : (transport.onclose = () => resolve())));
    throw new Error(`${(err as Error).message}: ${stderr}`);
  }
  return client;
}

describe.each(SCENARIOS)('wrap $client with variables the client fills at launch', (s) => {
  it('keeps them, and each filled command line runs only once the person approved it', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-wrap-vars-')));
    const home = join(root, 'home');
    const folderA = join(root, 'project-a');
    const folderB = join(root, 'project-b');
    for (const d of [folderA, folderB]) mkdirSync(d, { recursive: true });
    writeFileSync(join(folderA, 'hello.txt'), 'from A');
    const file = join(home, s.file);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, s.config);
    const dataDir = makeDataDir();
    cleanups.push(
      () => rmSync(root, { recursive: true, force: true }),
      () => rmSync(dataDir, { recursive: true, force: true }),
    );
    const env = { HOME: home, XDG_CONFIG_HOME: '' };
    const broker: TestBroker = await startServe(dataDir, [], env);
    cleanups.push(() => broker.stop());
    const cli = (...args: string[]) => run(NODE, [CLI, ...args, '--data-dir', dataDir], { cwd: home, env: { ...process.env, ...env } });

    // The preview shows the placeholders where the client will fill them, none masked away.
    const preview = await cli('wrap', s.client, '--dry-run');
    expect(preview.stdout).toContain('"${workspaceFolder}"');
    for (const [i, name] of s.fills.entries()) expect(preview.stdout).toContain(`"COUNTERSIGN_FILL_${i}": "${name}=\${${name}}"`);
    if (s.client === 'cursor') expect(preview.stdout).toMatch(/\$\{input:folder\} in args\[1\]: Cursor does not fill \$\{input:…\} variable/);
    const before = readFileSync(file, 'utf8');
    await cli('wrap', s.client, '--yes', '--only', 'files');
    const wrapped = (parseJsonc(readFileSync(file, 'utf8')) as Record<string, Record<string, Entry>>)[s.container]!.files!;
    expect(wrapped.args.slice(1)).toEqual(['connect', 'files', '--client', s.client, '--data-dir', dataDir]);
    expect(Object.keys(wrapped.env ?? {})).toEqual(s.fills.map((_, i) => `COUNTERSIGN_FILL_${i}`));
    // Countersign stored the launch as written, placeholders and all.
    const [stored] = await broker.api<ServerView[]>('listServers');
    expect(stored!.launch.commandLine).toEqual([NODE, FILESYSTEM_SERVER, '${workspaceFolder}']);

    // The client starts it with folder A: the launch waits for the person, who sees the real folder.
    const launchEnv = { PATH: process.env.PATH ?? '', HOME: home };
    await expect(start(expand(wrapped, s.values(folderA)), launchEnv)).rejects.toThrow(/has not started 'files'.*waits for your approval/);
    const [waiting] = await broker.api<LaunchRequest[]>('listLaunchRequests');
    const statusOf = async (): Promise<string | undefined> => (await broker.api<ServerView[]>('listServers')).find((v) => v.name === 'files')?.status;
    expect(await statusOf()).toBe('needs-consent');
    expect(waiting!.launch.commandLine).toEqual([NODE, FILESYSTEM_SERVER, folderA]);
    expect(waiting!.launch.envNames).toEqual(['API_KEY']);
    if (s.client === 'vscode') await broker.api('approveLaunch', 'files', waiting!.launch.hash);
    else {
      // `countersign servers approve`, as the refusal suggests: it shows and approves the filled launch waiting.
      const approved = await cli('servers', 'approve', 'files', '--yes', '--hash', waiting!.launch.hash);
      expect(approved.stdout).toContain(folderA);
      expect(approved.stdout).not.toContain('${workspaceFolder}');
    }
    // A filled launch approved: the server no longer waits for consent as a whole (its stored form never runs).
    expect(await statusOf()).not.toBe('needs-consent');

    // Approved: the same values run, and the server is rooted at folder A.
    const client = await start(expand(wrapped, s.values(folderA)), launchEnv);
    const call = client.callTool({ name: 'list_allowed_directories', arguments: {} });
    const pending = await broker.waitForPending((c) => c.tool === 'list_allowed_directories').catch(() => undefined);
    if (pending) await broker.api('decide', pending.id, { kind: 'allow-once' });
    expect(JSON.stringify(await call)).toContain(folderA);
    await client.close();

    // An agent starting connect by hand with another folder runs nothing: that launch waits in turn.
    await expect(start(expand(wrapped, s.values(folderB)), launchEnv)).rejects.toThrow(/has not started 'files'.*waits for your approval/);
    const requests = await broker.api<LaunchRequest[]>('listLaunchRequests');
    expect(requests.map((r) => r.launch.commandLine?.at(-1))).toEqual([folderB]);
    // A value for a placeholder the launch does not declare is refused outright.
    const undeclared = expand(wrapped, s.values(folderA));
    undeclared.env = { ...undeclared.env, COUNTERSIGN_FILL_9: 'input:other=x' };
    await expect(start(undeclared, launchEnv)).rejects.toThrow(/\$\{input:other\} is not a placeholder of its launch/);
    // Without the client's values nothing starts either.
    await expect(start({ ...wrapped, env: {} }, launchEnv)).rejects.toThrow(/the client did not fill/);

    // The value typed into the prompt (or taken from the client's env) is in no log entry and no file.
    const log = await broker.api<AuditEntry[]>('queryLog', {});
    expect(JSON.stringify(log)).not.toContain(SECRET);
    expect(JSON.stringify(log)).toContain(folderB);
    // The refused values are logged by name.
    const refused = log.find((e) => e.kind === 'launch' && /input:other\} is not a placeholder/.test(e.detail ?? ''));
    expect(refused?.arguments).toMatchObject({ filled: expect.arrayContaining(['input:other', 'workspaceFolder']), client: s.client });
    for (const f of filesUnder(dataDir)) expect(readFileSync(f).includes(SECRET), f).toBe(false);

    // Unwrap restores the file byte for byte.
    const undo = await cli('unwrap', s.client, '--dry-run');
    const plan = /plan hash ([0-9a-f]{64})/.exec(undo.stdout)![1]!;
    await cli('unwrap', s.client, '--yes', '--hash', plan);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 90_000);
});

describe('an env value the client fills at launch', () => {
  it('reaches the server; another env value (one an agent made up) is another launch that waits, shown by name only', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-wrap-vars-')));
    const home = join(root, 'home');
    const file = join(home, '.config/Code/User/mcp.json');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ servers: { named: { command: NODE, args: [FIXTURE, 'names'], env: { FIXTURE_SERVER_NAME: '${input:name}' } } } }));
    const dataDir = makeDataDir();
    cleanups.push(
      () => rmSync(root, { recursive: true, force: true }),
      () => rmSync(dataDir, { recursive: true, force: true }),
    );
    const env = { HOME: home, XDG_CONFIG_HOME: '' };
    const broker = await startServe(dataDir, [], env);
    cleanups.push(() => broker.stop());
    await run(NODE, [CLI, 'wrap', 'vscode', '--yes', '--data-dir', dataDir], { cwd: home, env: { ...process.env, ...env } });
    const wrapped = (parseJsonc(readFileSync(file, 'utf8')) as { servers: Record<string, Entry> }).servers.named!;
    const launchEnv = { PATH: process.env.PATH ?? '', HOME: home };
    await expect(start(expand(wrapped, { 'input:name': 'alpha' }), launchEnv)).rejects.toThrow(/waits for your approval/);
    const [waiting] = await broker.api<LaunchRequest[]>('listLaunchRequests');
    expect(waiting!.launch.envNames).toEqual(['FIXTURE_SERVER_NAME']);
    expect(JSON.stringify(waiting)).not.toContain('alpha');
    await broker.api('approveLaunch', 'named', waiting!.launch.hash);
    const client = await start(expand(wrapped, { 'input:name': 'alpha' }), launchEnv);
    expect(client.getServerVersion()?.name).toBe('alpha');
    await client.close();
    await expect(start(expand(wrapped, { 'input:name': 'beta' }), launchEnv)).rejects.toThrow(/waits for your approval/);
    const again = await broker.api<LaunchRequest[]>('listLaunchRequests');
    expect(again.map((r) => r.launch.hash)).not.toContain(waiting!.launch.hash);
    expect(JSON.stringify(again)).not.toContain('beta');
  }, 60_000);
});
