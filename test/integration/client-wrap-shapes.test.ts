// Client configs as people have them: a 10 MB ~/.claude.json, a file or folder made read-only, CRLF
// line ends, server names in any script, comments beside the values a wrap replaces, VS Code's older
// settings.json "mcp" block, and the project configs of the folder `serve` runs in.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientView } from '../../shared/clients.js';
import { parseJsonc } from '../../electron/broker/clients/json-format.js';
import { makeDataDir, startServe } from '../helpers/broker-harness.js';
import { bigClaudeJson } from '../helpers/big-claude-json.js';
import { clientBroker, CLIENT_FIXTURES, type FixtureClient } from '../helpers/client-home.js';
import { CLI, NODE } from '../helpers/paths.js';
import { makeUnwritable } from '../helpers/unwritable.js';

// Counts the whole-file parses: jsonc-parser's parseTree on texts over 1 MB (entries are parsed alone).
const parses = vi.hoisted(() => ({ big: 0 }));
vi.mock('jsonc-parser', async (original) => {
  const real = await original<typeof import('jsonc-parser')>();
  return {
    ...real,
    parseTree: (text: string, ...rest: Parameters<typeof real.parseTree> extends [string, ...infer R] ? R : never) => {
      if (text.length > 1_000_000) parses.big++;
      return real.parseTree(text, ...rest);
    },
  };
});

const run = promisify(execFile);
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function setup(clients: FixtureClient[], withProject = false) {
  const world = clientBroker(clients, withProject);
  cleanups.push(world.close);
  return world;
}

async function cli(home: string, dataDir: string, cwd: string, ...args: string[]) {
  try {
    const r = await run(NODE, [CLI, '--data-dir', dataDir, ...args], { cwd, env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '' } });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe('client configs at real-world sizes and shapes', () => {
  it('a 10 MB ~/.claude.json is parsed once for a preview and its confirmation, wrapped in place, and unwrapped to the exact bytes', async () => {
    const { h, broker, core } = setup(['claude-code']);
    const file = h.userFile('claude-code');
    const big = bigClaudeJson(10 * 1024 * 1024);
    writeFileSync(file, big);
    parses.big = 0;
    const preview = await broker.previewWrap('claude-code', {});
    const result = await broker.wrapClient('claude-code', {}, preview.planHash);
    expect(parses.big).toBe(1);
    expect(result.files[0]!.wrapped).toHaveLength(preview.changes);
    expect(preview.changes).toBeGreaterThan(5);
    // The diff holds the entries and their context, not the file.
    expect(preview.files[0]!.diff.length).toBeLessThan(20_000);
    expect(preview.files[0]!.diff).not.toContain('project-secret-');
    const after = readFileSync(file, 'utf8');
    expect(after).not.toContain('project-secret-');
    // Everything but the wrapped entries is as it was.
    const doc = parseJsonc(after) as { projects: Record<string, { history: unknown[] }> };
    expect(doc.projects['/home/me/src/project-1']!.history).toEqual((JSON.parse(big) as typeof doc).projects['/home/me/src/project-1']!.history);
    expect(core.store.getServer('tools-40')).toEqual({
      command: 'node',
      args: ['/srv/project-40/mcp.js'],
      env: { PROJECT_TOKEN: 'project-secret-40' },
      cwd: '/home/me/src/project-40',
    });
    await broker.unwrapClient('claude-code', {});
    expect(readFileSync(file, 'utf8')).toBe(big);
  });

  it('a read-only file, or one in a read-only folder, is never replaced: the preview says why and how to allow it', async () => {
    const { h, broker, dataDir } = setup(['cursor']);
    const file = h.userFile('cursor');
    const before = readFileSync(file, 'utf8');
    chmodSync(file, 0o444);
    const preview = await broker.previewWrap('cursor', {});
    expect(preview.changes).toBe(0);
    expect(preview.files[0]!.readOnly).toBe(
      `Countersign will not replace this file: it is read-only (mode 444). To wrap it, make it writable (chmod u+w '${file}'), then run wrap again.`,
    );
    expect(preview.files[0]!.entries.filter((e) => e.action === 'refuse').map((e) => e.reason)).toContain('its file is read-only (see above)');
    const r = await cli(h.home, dataDir, h.home, 'wrap', 'cursor', '--yes');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Countersign will not replace this file: it is read-only (mode 444).');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).mode & 0o777).toBe(0o444);
    expect((await broker.listClients()).find((c) => c.id === 'cursor')!.files[0]!.readOnly).toMatch(/read-only \(mode 444\)/);
    expect((await cli(h.home, dataDir, h.home, 'clients')).stdout).toContain(
      `${file}\n    Countersign will not replace this file: it is read-only (mode 444).`,
    );

    chmodSync(file, 0o644);
    chmodSync(dirname(file), 0o555);
    cleanups.push(() => chmodSync(dirname(file), 0o755));
    const folder = await broker.previewWrap('cursor', {});
    expect(folder.changes).toBe(0);
    expect(folder.files[0]!.readOnly).toMatch(/its folder is read-only \(mode 555\).*chmod u\+w/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a file made read-only between the preview and the confirmation is refused at the write; nothing is left behind', async () => {
    const { h, broker, dataDir, core } = setup(['claude-desktop']);
    const file = h.userFile('claude-desktop');
    const before = readFileSync(file, 'utf8');
    const preview = await broker.previewWrap('claude-desktop', {});
    chmodSync(file, 0o444);
    await expect(broker.wrapClient('claude-desktop', {}, preview.planHash)).rejects.toThrow(
      /could not write .*: it is read-only \(mode 444\).*the file is unchanged/,
    );
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(Object.keys(core.store.listServers())).toEqual([]);
    // No orphan backup: the folder holds the index and nothing else.
    expect(readdirSync(join(dataDir, 'client-backups'))).toEqual(['index.json']);
  });

  it('a failed write (an immutable folder) leaves no orphan backup and no record', async () => {
    const { h, broker, dataDir, core } = setup(['cursor'], true);
    const preview = await broker.previewWrap('cursor', { project: h.project });
    // The project file is written last; its folder refuses the new file.
    cleanups.push(makeUnwritable(dirname(h.projectFile('cursor'))));
    await expect(broker.wrapClient('cursor', { project: h.project }, preview.planHash)).rejects.toThrow(/the file is unchanged/);
    expect(core.clients.backups.records()).toEqual([]);
    expect(readdirSync(join(dataDir, 'client-backups')).filter((f) => f.endsWith('.bak'))).toEqual([]);
  });

  it('CRLF files: the diff shows lines without \\r, the file keeps CRLF on every line and its last line end', async () => {
    const { h, broker, dataDir } = setup(['claude-desktop']);
    const file = h.userFile('claude-desktop');
    const text = readFileSync(join(CLIENT_FIXTURES, 'claude-desktop/claude_desktop_config.json'), 'utf8').replace(/\n/g, '\r\n');
    writeFileSync(file, text);
    const preview = await broker.previewWrap('claude-desktop', {});
    expect(preview.files[0]!.lineEnds).toBe('crlf');
    expect(preview.files[0]!.diff).not.toContain('\r');
    expect(preview.files[0]!.diff).toMatch(/^-      "command": "npx",$/m);
    const dry = await cli(h.home, dataDir, h.home, 'wrap', 'claude-desktop', '--dry-run');
    expect(dry.stdout).toContain('(its lines end with CRLF; the diff shows lines, and the file keeps its line ends)');
    expect(dry.stdout).not.toMatch(/\\x0d|\r/);
    await broker.wrapClient('claude-desktop', {}, preview.planHash);
    const after = readFileSync(file, 'utf8');
    expect(after).toMatch(/\r\n$/);
    expect(after).not.toMatch(/[^\r]\n/);
    await broker.unwrapClient('claude-desktop', {});
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('a server name in any script keeps its letters (transliterated for the `connect` argument)', async () => {
    const { h, broker, core, dataDir } = setup(['cursor']);
    const file = h.userFile('cursor');
    writeFileSync(
      file,
      JSON.stringify(
        { mcpServers: { 'Ünïcode server v2.1 ☃': { command: 'uvx', args: ['mcp-server-time'] }, Сервер: { command: 'uvx', args: ['other'] } } },
        null,
        2,
      ),
    );
    const preview = await broker.previewWrap('cursor', {});
    expect(preview.files[0]!.entries.map((e) => e.server)).toEqual(['Unicode-server-v2.1-snowman2', 'Server']);
    await broker.wrapClient('cursor', {}, preview.planHash);
    expect(core.store.getServer('Unicode-server-v2.1-snowman2')).toEqual({ command: 'uvx', args: ['mcp-server-time'] });
    const entry = (parseJsonc(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { args: string[] }> }).mcpServers['Ünïcode server v2.1 ☃']!;
    expect(entry.args.slice(-6)).toEqual(['connect', 'Unicode-server-v2.1-snowman2', '--client', 'cursor', '--data-dir', dataDir]);
  });

  it("a comment beside a replaced value moves to the entry's top, saying it described the original", async () => {
    const { h, broker } = setup(['cursor']);
    const file = h.userFile('cursor');
    writeFileSync(
      file,
      [
        '{',
        '  "mcpServers": {',
        '    "files": {',
        '      "command": "npx", // runs the filesystem server with npx',
        '      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"], /* my home */',
        '      // the token for it',
        '      "env": { "TOKEN": "t" },',
        '      "disabled": false // kept beside its own value',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    await broker.wrapClient('cursor', {}, (await broker.previewWrap('cursor', {})).planHash);
    const after = readFileSync(file, 'utf8');
    expect(after).toContain(
      [
        '    "files": {',
        "      // described command before Countersign's wrap: runs the filesystem server with npx",
        "      /* described args before Countersign's wrap: my home */",
        "      // described env before Countersign's wrap: the token for it",
        '      "command": "/',
      ].join('\n'),
    );
    expect(after).toMatch(/"command": "[^"]+",\n/);
    expect(after).toContain('"disabled": false // kept beside its own value');
    expect(after.match(/runs the filesystem server/g)).toHaveLength(1);
    await broker.unwrapClient('cursor', {});
  });

  it('reads VS Code\'s settings.json "mcp" block, wraps it in place and puts it back exactly', async () => {
    const { h, broker } = setup(['vscode']);
    const settings = join(dirname(h.userFile('vscode')), 'settings.json');
    const text = readFileSync(join(CLIENT_FIXTURES, 'vscode/settings.json'), 'utf8');
    writeFileSync(settings, text);
    const listed = (await broker.listClients()).find((c) => c.id === 'vscode')!;
    expect(listed.files.map((f) => f.path)).toEqual([h.userFile('vscode'), settings]);
    expect(listed.files[1]!.servers.map((s) => [s.name, s.state])).toEqual([['fetch', 'direct']]);
    const preview = await broker.previewWrap('vscode', { only: ['fetch'] });
    await broker.wrapClient('vscode', { only: ['fetch'] }, preview.planHash);
    const after = readFileSync(settings, 'utf8');
    expect(after).toContain('"editor.fontSize": 14');
    expect(after).toContain('"files.autoSave": "afterDelay"');
    expect((parseJsonc(after) as { mcp: { servers: { fetch: { args: string[] } } } }).mcp.servers.fetch.args).toContain('connect');
    await broker.unwrapClient('vscode', {});
    expect(readFileSync(settings, 'utf8')).toBe(text);
  });

  it('`serve` shows the project configs of the folder it was started in', async () => {
    const { h } = setup(['vscode'], true);
    const dataDir = makeDataDir();
    const broker = await startServe(dataDir, [], { HOME: h.home, XDG_CONFIG_HOME: '' }, { cwd: h.project });
    cleanups.push(() => broker.stop());
    const clients = await broker.api<ClientView[]>('listClients');
    const vscode = clients.find((c) => c.id === 'vscode')!;
    expect(vscode.files.map((f) => [f.path, f.scope])).toEqual([
      [h.userFile('vscode'), 'user'],
      [h.projectFile('vscode'), 'project'],
    ]);
    mkdirSync(join(h.project, '.cursor'), { recursive: true });
    writeFileSync(join(h.project, '.cursor/mcp.json'), '{ "mcpServers": { "x": { "command": "uvx", "args": ["x"] } } }');
    const cursor = (await broker.api<ClientView[]>('listClients')).find((c) => c.id === 'cursor')!;
    expect(cursor.files.map((f) => f.scope)).toEqual(['project']);
  });
});
