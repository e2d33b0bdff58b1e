// Wrap and unwrap every known client's config, from fixture files in their real formats (comments,
// unknown keys, placeholders), through the broker's API on real files in a temporary home folder.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../shared/api.js';
import { countersignCommand } from '../../electron/broker/core/cli-command.js';
import { parseJsonc } from '../../electron/broker/clients/json-format.js';
import { parse as parseToml } from 'smol-toml';
import { clientBroker, type ClientHome, type FixtureClient } from '../helpers/client-home.js';
import { makeUnwritable } from '../helpers/unwritable.js';

interface Case {
  client: FixtureClient;
  /** Entries wrap takes over, in file order (user file first). */
  wraps: string[];
  refuses: Record<string, RegExp>;
  /** Text that must survive the wrap untouched: comments, unknown keys, other settings. */
  kept: string[];
  /** A server as Countersign stores it after the wrap, secrets included. */
  stored: [string, (h: ClientHome) => ServerConfig];
  /** Secret values that must leave the client file and never reach a log. */
  secrets: string[];
  /** An edit the person makes after the wrap, outside Countersign's entries. */
  edit: [string, string];
}

const CASES: Case[] = [
  {
    client: 'claude-desktop',
    wraps: ['filesystem', 'github'],
    refuses: {},
    kept: ['"globalShortcut": "Ctrl+Space"', '"x-note": "kept: an unknown key"', '"menuBarEnabled": false'],
    stored: [
      'github',
      () => ({
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_fixtureSecretValue123' },
      }),
    ],
    secrets: ['ghp_fixtureSecretValue123'],
    edit: ['"menuBarEnabled": false', '"menuBarEnabled": true'],
  },
  {
    client: 'claude-code',
    wraps: ['sequential-thinking', 'sentry', 'postgres', 'notes', 'project-files'],
    refuses: {
      linear: /legacy SSE server/,
      api: /^\$\{API_BASE_URL:-https:\/\/api\.example\.com\} in url \(and 1 more\) is computed by Claude Code when it starts the server, which Countersign cannot repeat, so Countersign leaves this entry as it is/,
    },
    kept: ['"numStartups": 42', '"hasTrustDialogAccepted": true', '"userID": "fixture"'],
    // ${PGPASSWORD} as the env entry of that name passes through: Countersign's environment gives it.
    stored: [
      'postgres',
      () => ({
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://localhost/app'],
        cwd: '/home/me/src/app',
        limits: { network: 'unrestricted', filesystem: 'host', passEnv: ['PGPASSWORD'] },
      }),
    ],
    secrets: ['sntrys_fixtureSecret'],
    edit: ['"numStartups": 42', '"numStartups": 43'],
  },
  {
    // ${env:SEARCH_KEY} in args stays for Cursor to fill when it starts `connect` (trust/launch-fill.ts).
    client: 'cursor',
    wraps: ['filesystem', 'browser', 'brave', 'search', 'filesystem'],
    refuses: {},
    kept: ['"disabled": false', '"COUNTERSIGN_FILL_0": "env:SEARCH_KEY=${env:SEARCH_KEY}"'],
    // The project's ${workspaceFolder} is filled in; its name clashes with the user file's filesystem.
    stored: ['filesystem-cursor', (h) => ({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', `${h.project}/docs`], cwd: h.project })],
    secrets: ['cursor-fixture-key'],
    // A server the person adds after the wrap, beside Countersign's entries.
    edit: ['"mcpServers": {', '"mcpServers": {\n    "added": { "command": "added-later" },'],
  },
  {
    // ${input:perplexity-key} stays for VS Code to ask and fill when it starts `connect` (trust/launch-fill.ts).
    client: 'vscode',
    wraps: ['notes', 'perplexity', 'github', 'time'],
    refuses: { 'workspace-files': /envFile/ },
    kept: [
      '// VS Code user MCP servers',
      '/* Files in my notes folder */',
      '"dev": { "watch": "src/**/*.ts" }, // unknown to Countersign: kept',
      '"id": "perplexity-key"',
      '"COUNTERSIGN_FILL_0": "input:perplexity-key=${input:perplexity-key}"',
    ],
    stored: ['notes', (h) => ({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', `${h.home}/notes`] })],
    secrets: ['vscode-fixture-token'],
    edit: ['"description": "Perplexity API Key"', '"description": "Perplexity key"'],
  },
  {
    client: 'windsurf',
    wraps: ['filesystem', 'figma', 'stripe'],
    refuses: { notes: /^\$\{file:\/home\/me\/\.notes-token\} in env\.NOTES_TOKEN is computed by Windsurf/ },
    kept: ['"disabledTools": ["move_file"]', '"NOTES_TOKEN": "${file:/home/me/.notes-token}"'],
    stored: ['figma', () => ({ url: 'https://mcp.figma.com/mcp', headers: { Authorization: 'Bearer windsurf-fixture-token' } })],
    secrets: ['windsurf-fixture-token'],
    edit: ['"disabled": true', '"disabled": false'],
  },
  {
    client: 'codex',
    wraps: ['filesystem', 'github', 'context7', 'project-files'],
    refuses: { figma: /bearer_token_env_var/ },
    kept: [
      '# Codex configuration',
      'startup_timeout_sec = 20 # unknown to Countersign: kept',
      "[mcp_servers.filesystem]\n# described args before Countersign's wrap: the folder Codex may touch\n",
      '# A remote server with a static header',
      'tool_timeout_sec = 60',
      '[profiles.fast]\nmodel = "o4-mini"\n# end of file\n',
      'bearer_token_env_var = "FIGMA_OAUTH_TOKEN"',
    ],
    stored: [
      'github',
      () => ({
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_codexFixtureSecret' },
        cwd: '/home/me',
      }),
    ],
    secrets: ['ghp_codexFixtureSecret', 'ctx7-fixture-key'],
    edit: ['model = "o3"', 'model = "o4"'],
  },
  {
    client: 'gemini',
    wraps: ['filesystem', 'docs'],
    refuses: { github: /^\$GITHUB_PAT in headers\.Authorization is filled in by Gemini CLI from its environment/, legacy: /legacy SSE server/ },
    kept: [
      '// Gemini CLI settings (comments are allowed)',
      '"trust": false',
      '"includeTools": ["read_file", "write_file"]',
      '"telemetry": { "enabled": false }',
    ],
    // A relative cwd in a project file is the project's.
    stored: ['docs', (h) => ({ command: 'node', args: ['scripts/docs-server.js'], cwd: `${h.project}/tools` })],
    secrets: [],
    edit: ['"theme": "GitHub"', '"theme": "Dracula"'],
  },
];

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function setup(client: FixtureClient) {
  const { h, dataDir, core, broker, close } = clientBroker([client]);
  cleanups.push(close);
  const files = [h.userFile(client), h.projectFile(client)].filter((f) => {
    try {
      readFileSync(f);
      return true;
    } catch {
      return false;
    }
  });
  const read = () => files.map((f) => readFileSync(f, 'utf8'));
  return { h, dataDir, core, broker, files, read, opts: { project: h.project } };
}

const parse = (file: string, text: string): Record<string, unknown> => (file.endsWith('.toml') ? parseToml(text) : parseJsonc(text)) as Record<string, unknown>;

/** The entry objects of a client file, by name (Claude Code's projects included). */
function entriesOf(file: string, text: string): Array<[string, Record<string, unknown>]> {
  const doc = parse(file, text);
  const maps = [
    doc.mcpServers,
    doc.servers,
    doc.mcp_servers,
    ...Object.values((doc.projects ?? {}) as Record<string, { mcpServers?: unknown }>).map((p) => p.mcpServers),
  ];
  return maps.filter(Boolean).flatMap((m) => Object.entries(m as Record<string, Record<string, unknown>>));
}

describe.each(CASES)('$client', (c) => {
  it('wraps what it can, keeps comments and unknown keys, moves secrets into Countersign, and is idempotent', async () => {
    const { core, h, dataDir, broker, files, read, opts } = setup(c.client);
    const before = read();
    const preview = await broker.previewWrap(c.client, opts);
    const plans = preview.files.flatMap((f) => f.entries);
    expect(plans.filter((e) => e.action === 'add' || e.action === 'reuse').map((e) => e.entry)).toEqual(c.wraps);
    for (const [name, why] of Object.entries(c.refuses)) expect(plans.find((e) => e.entry === name)?.reason).toMatch(why);
    for (const secret of c.secrets) expect(JSON.stringify(preview)).not.toContain(secret);

    const result = await broker.wrapClient(c.client, opts, preview.planHash);
    expect(result.files.flatMap((f) => f.wrapped)).toEqual(c.wraps);
    const after = read();
    const all = after.join('\n');
    for (const text of c.kept) expect(all).toContain(text);
    for (const secret of c.secrets) expect(all).not.toContain(secret);

    // Each wrapped entry starts Countersign's absolute command with connect <server> --client <id>.
    const cli = countersignCommand();
    const wrapped = files.flatMap((f, i) => entriesOf(f, after[i]!)).filter(([name]) => c.wraps.includes(name));
    const servers = plans.filter((e) => e.server && (e.action === 'add' || e.action === 'reuse')).map((e) => e.server!);
    expect(wrapped.map(([, v]) => v.args)).toEqual(servers.map((s) => [...cli.args, 'connect', s, '--client', c.client, '--data-dir', dataDir]));
    for (const [, v] of wrapped) {
      expect(v.command).toBe(cli.command);
      for (const gone of ['cwd', 'url', 'serverUrl', 'httpUrl', 'headers', 'http_headers']) expect(v).not.toHaveProperty(gone);
      // The only env left carries the values of the placeholders the client fills when it starts connect.
      for (const [k, val] of Object.entries((v as { env?: Record<string, string> }).env ?? {}))
        expect(`${k}=${val}`).toMatch(/^COUNTERSIGN_FILL_\d+=([\w.:-]+)=\$\{\1\}$/);
    }

    const [name, config] = c.stored;
    expect(core.store.getServer(name)).toEqual(config(h));
    const views = await broker.listServers();
    for (const s of result.added) {
      const view = views.find((v) => v.name === s)!;
      expect(view.trusted).toBe(false);
      if ('command' in view.config) expect(view.status).toBe('needs-consent');
    }

    // The audit names env and header names, never their values.
    const audit = (await broker.queryLog({})).filter((e) => e.kind === 'client');
    expect(audit.map((e) => [e.tool, e.status])).toEqual([['wrap', 'ok']]);
    const log = readFileSync(`${dataDir}/audit.jsonl`, 'utf8');
    for (const secret of c.secrets) expect(log).not.toContain(secret);

    const listed = (await broker.listClients(opts)).find((v) => v.id === c.client)!;
    expect(listed.canUnwrap).toBe(true);
    const states = listed.files
      .flatMap((f) => f.servers)
      .filter((s) => c.wraps.includes(s.name))
      .map((s) => s.state);
    expect(states).toEqual(c.wraps.map(() => 'wrapped'));

    // Again: nothing to change, nothing written.
    const again = await broker.previewWrap(c.client, opts);
    expect(again.changes).toBe(0);
    expect(again.files.map((f) => f.diff)).toEqual(again.files.map(() => ''));
    expect((await broker.wrapClient(c.client, opts, again.planHash)).files).toEqual([]);
    expect(read()).toEqual(after);
    expect(before).not.toEqual(after);
  });

  it('round trip: unwrap gives back the exact bytes', async () => {
    const { broker, read, opts } = setup(c.client);
    const before = read();
    await broker.wrapClient(c.client, opts, (await broker.previewWrap(c.client, opts)).planHash);
    const preview = await broker.previewUnwrap(c.client, opts);
    expect(preview.files.map((f) => f.how)).toEqual(before.map(() => 'exact'));
    const result = await broker.unwrapClient(c.client, opts, preview.planHash);
    expect(read()).toEqual(before);
    expect(result.files.flatMap((f) => f.entries.map((e) => e.outcome))).toEqual(c.wraps.map(() => 'restored'));
    const listed = (await broker.listClients(opts)).find((v) => v.id === c.client)!;
    expect(listed.canUnwrap).toBe(false);
    expect((await broker.previewUnwrap(c.client, opts)).files).toEqual([]);
  });

  it("undo after an outside edit: reverts only Countersign's entries and keeps the edit", async () => {
    const { broker, files, read, opts } = setup(c.client);
    const before = read();
    await broker.wrapClient(c.client, opts, (await broker.previewWrap(c.client, opts)).planHash);
    const [from, to] = c.edit;
    const user = files[0]!;
    const wrapped = readFileSync(user, 'utf8');
    expect(wrapped).toContain(from);
    writeFileSync(user, wrapped.replace(from, to));
    const result = await broker.unwrapClient(c.client, opts);
    expect(result.files[0]!.how).toBe('entries');
    expect(result.files[0]!.backup).toBeTruthy();
    // Their edit stays; every other byte is as before the wrap.
    expect(read()).toEqual([before[0]!.replace(from, to), ...before.slice(1)]);
    // The file as it was just before the unwrap is in the backup.
    expect(readFileSync(result.files[0]!.backup!, 'utf8')).toBe(wrapped.replace(from, to));
  });

  it('a failed write leaves the old file whole and rolls back the servers it added', async () => {
    const { core, broker, files, read, opts, dataDir } = setup(c.client);
    const before = read();
    const preview = await broker.previewWrap(c.client, opts);
    // The last file written fails: any file written before it gets its old bytes back.
    const undo = makeUnwritable(dirname(files.at(-1)!));
    cleanups.push(undo);
    await expect(broker.wrapClient(c.client, opts, preview.planHash)).rejects.toThrow(/could not write .*the file is unchanged/);
    expect(read()).toEqual(before);
    expect(Object.keys(core.store.listServers())).toEqual([]);
    expect(core.clients.backups.records()).toEqual([]);
    const audit = (await broker.queryLog({})).filter((e) => e.kind === 'client');
    expect(audit.map((e) => [e.tool, e.status])).toEqual([['wrap', 'failed']]);
    const log = readFileSync(`${dataDir}/audit.jsonl`, 'utf8');
    for (const secret of c.secrets) expect(log).not.toContain(secret);
  });
});
