// What a person with several clients meets beyond the fixtures: a file that does not parse, a file
// changed between preview and confirm, symlinked dotfiles, entries edited after the wrap, one server in
// two clients, --only, the old npx entry, TOML written in other shapes, and an unwrap that cannot write.
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientId, WrapOptions } from '../../shared/clients.js';
import { parseJsonc } from '../../electron/broker/clients/json-format.js';
import { clientBroker, type FixtureClient } from '../helpers/client-home.js';
import { makeUnwritable } from '../helpers/unwritable.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function setup(clients: FixtureClient[], withProject = false) {
  const { h, dataDir, core, broker, close } = clientBroker(clients, withProject);
  cleanups.push(close);
  const wrap = async (client: ClientId, opts: WrapOptions = {}) => broker.wrapClient(client, opts, (await broker.previewWrap(client, opts)).planHash);
  return { h, dataDir, core, broker, wrap };
}

describe('wrap and unwrap, beyond the fixtures', () => {
  it('leaves a file it cannot parse alone, and says where the problem is', async () => {
    const { h, broker } = setup(['claude-desktop']);
    const file = h.userFile('claude-desktop');
    const broken = '{\n  "mcpServers": {\n    "fs": { "command": "npx" }\n    "b": {}\n  }\n}\n';
    writeFileSync(file, broken);
    const listed = (await broker.listClients()).find((c) => c.id === 'claude-desktop')!;
    expect(listed.files[0]!.error).toBe('Countersign cannot read this file, so it leaves it alone: line 4, column 5: a comma is expected');
    const preview = await broker.previewWrap('claude-desktop', {});
    expect(preview.changes).toBe(0);
    expect(preview.files[0]!.error).toMatch(/line 4, column 5/);
    expect((await broker.wrapClient('claude-desktop', {}, preview.planHash)).files).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });

  it('refuses to write when the file changed between the preview and the confirmation', async () => {
    const { core, h, broker } = setup(['cursor']);
    const file = h.userFile('cursor');
    const preview = await broker.previewWrap('cursor', {});
    const edited = readFileSync(file, 'utf8').replace('"disabled": false', '"disabled": true');
    writeFileSync(file, edited);
    await expect(broker.wrapClient('cursor', {}, preview.planHash)).rejects.toThrow(/changed since the preview, so nothing was written/);
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(Object.keys(core.store.listServers())).toEqual([]);
  });

  it('writes through a symlinked dotfile, keeps the link and the file mode; backups are private', async () => {
    const { h, dataDir, wrap, broker } = setup(['windsurf']);
    const link = h.userFile('windsurf');
    const real = join(h.root, 'dotfiles', 'mcp_config.json');
    mkdirSync(dirname(real), { recursive: true });
    writeFileSync(real, readFileSync(link));
    rmSync(link);
    symlinkSync(real, link);
    chmodSync(real, 0o640);
    const before = readFileSync(real, 'utf8');
    await wrap('windsurf');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('"connect"');
    expect(statSync(real).mode & 0o777).toBe(0o640);
    const backups = join(dataDir, 'client-backups');
    expect(statSync(backups).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(backups)) expect(statSync(join(backups, f)).mode & 0o777).toBe(0o600);
    await broker.unwrapClient('windsurf', {});
    expect(readFileSync(real, 'utf8')).toBe(before);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('an entry the person extended is reverted key by key; one they re-pointed is left to them', async () => {
    const { h, broker, wrap } = setup(['vscode']);
    const file = h.userFile('vscode');
    const original = readFileSync(file, 'utf8');
    await wrap('vscode');
    const wrapped = readFileSync(file, 'utf8');
    // Into the wrapped "notes" entry they add a key; the wrapped "github" they point elsewhere.
    const edited = wrapped
      .replace('"dev": { "watch": "src/**/*.ts" },', '"dev": { "watch": "src/**/*.ts" },\n\t\t\t"gallery": true,')
      .replace(/("github": \{\n\t\t\t"type": "stdio",\n\t\t\t"command": )"[^"]+"/, '$1"/usr/local/bin/my-proxy"');
    expect(edited).not.toBe(wrapped);
    writeFileSync(file, edited);
    const result = await broker.unwrapClient('vscode', {});
    expect(result.files[0]!.entries).toEqual([
      { entry: 'notes', outcome: 'restored' },
      // Wrapped too: its ${input:perplexity-key} stays for VS Code to fill at launch.
      { entry: 'perplexity', outcome: 'restored' },
      { entry: 'github', outcome: 'kept', why: 'it was changed since the wrap, so it is left as you have it' },
    ]);
    const servers = (parseJsonc(readFileSync(file, 'utf8')) as { servers: Record<string, Record<string, unknown>> }).servers;
    const before = (parseJsonc(original) as { servers: Record<string, Record<string, unknown>> }).servers;
    expect(servers.notes).toEqual({ ...before.notes, gallery: true });
    expect(servers.github!.command).toBe('/usr/local/bin/my-proxy');
    expect(readFileSync(file, 'utf8')).toContain('// unknown to Countersign: kept');
  });

  it('one server in two clients is one Countersign server; a different one with the same name gets a suffix shown in the diff', async () => {
    const { core, h, broker, wrap } = setup(['claude-desktop', 'cursor', 'vscode'], true);
    await wrap('claude-desktop');
    const preview = await broker.previewWrap('cursor', { project: h.project });
    const entries = preview.files.flatMap((f) => f.entries);
    expect(entries.find((e) => e.entry === 'filesystem' && e.action === 'reuse')?.server).toBe('filesystem');
    const clash = entries.find((e) => e.server === 'filesystem-cursor')!;
    expect(clash).toMatchObject({ action: 'add', note: "named 'filesystem-cursor': Countersign's 'filesystem' starts a different command" });
    expect(preview.files[1]!.diff).toContain('+        "filesystem-cursor",');
    const result = await broker.wrapClient('cursor', { project: h.project }, preview.planHash);
    // 'search' too: its ${env:SEARCH_KEY} in args stays for Cursor to fill at launch.
    expect(result).toMatchObject({ added: ['browser', 'brave', 'search', 'filesystem-cursor'], reused: ['filesystem'] });
    // Unwrapping one client leaves the servers the other still uses.
    const undone = await broker.unwrapClient('claude-desktop', {});
    expect(undone.servers).toEqual(['filesystem', 'github']);
    expect(core.store.getServer('filesystem')).toBeDefined();
  });

  it('--only wraps the named entries; an unknown name or client is a clear error', async () => {
    const { h, broker, wrap } = setup(['claude-desktop']);
    const result = await wrap('claude-desktop', { only: ['github'] });
    expect(result.files[0]!.wrapped).toEqual(['github']);
    const preview = await broker.previewWrap('claude-desktop', { only: ['filesystem'] });
    expect(preview.files[0]!.entries.map((e) => [e.entry, e.action])).toEqual([
      ['filesystem', 'add'],
      ['github', 'skip'],
      ['memory', 'skip'],
    ]);
    await expect(broker.previewWrap('claude-desktop', { only: ['nope'] })).rejects.toThrow(
      "Claude Desktop's config has no server named 'nope'. Its servers: filesystem, github, memory.",
    );
    await expect(broker.previewWrap('nope' as ClientId, {})).rejects.toThrow(/does not know a client called 'nope'/);
    await expect(broker.previewWrap('cursor', {})).rejects.toThrow(`No Cursor config file was found. Countersign looked in: ${h.home}/.cursor/mcp.json.`);
    await expect(broker.listClients({ project: 'relative/dir' })).rejects.toThrow(/must be an absolute path/);
  });

  it('rewrites an old `npx countersign connect` entry to the absolute command, keeping its server', async () => {
    const { h, broker, dataDir } = setup(['cursor']);
    const file = h.userFile('cursor');
    writeFileSync(file, JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['countersign', 'connect', 'fs', '--data-dir', dataDir] } } }, null, 2));
    const listed = (await broker.listClients()).find((c) => c.id === 'cursor')!;
    expect(listed.files[0]!.servers[0]).toMatchObject({
      state: 'wrapped',
      countersignServer: 'fs',
      note: expect.stringMatching(/package registry decides what runs/),
    });
    const preview = await broker.previewWrap('cursor', {});
    expect(preview.files[0]!.entries).toEqual([expect.objectContaining({ entry: 'fs', action: 'update', server: 'fs' })]);
    await broker.wrapClient('cursor', {}, preview.planHash);
    const entry = (JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: { fs: { command: string; args: string[] } } }).mcpServers.fs;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(-6)).toEqual(['connect', 'fs', '--client', 'cursor', '--data-dir', dataDir]);
  });

  it('Codex entries written as inline tables or dotted keys are refused with a reason, and the rest is wrapped', async () => {
    const { h, broker, wrap } = setup(['codex']);
    const file = h.userFile('codex');
    const text = [
      '[mcp_servers]',
      'inline = { command = "npx", args = ["a"] }',
      'dotted.command = "npx"',
      '',
      '[mcp_servers.table]',
      "command = 'uvx' # a comment",
      '',
    ].join('\r\n');
    writeFileSync(file, text);
    const preview = await broker.previewWrap('codex', {});
    expect(preview.files[0]!.entries.map((e) => [e.entry, e.action, e.reason])).toEqual([
      ['inline', 'refuse', 'inline is not written as a [mcp_servers.inline] table (Countersign edits only that form); rewrite it as one, or change it by hand'],
      ['dotted', 'refuse', 'dotted is not written as a [mcp_servers.dotted] table (Countersign edits only that form); rewrite it as one, or change it by hand'],
      ['table', 'add', undefined],
    ]);
    await wrap('codex');
    const after = readFileSync(file, 'utf8');
    // The comment beside the replaced command moves under the header, saying what it described.
    expect(
      after.startsWith(
        '[mcp_servers]\r\ninline = { command = "npx", args = ["a"] }\r\ndotted.command = "npx"\r\n\r\n[mcp_servers.table]\r\n# described command before Countersign\'s wrap: a comment\r\ncommand = "',
      ),
    ).toBe(true);
    expect(after).toMatch(/command = "[^"]+"\r\nargs = \[.*"connect", "table"/);
    expect(after).not.toMatch(/[^\r]\n/);
    await broker.unwrapClient('codex', {});
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('an unwrap that cannot write leaves the wrapped file whole and can be tried again', async () => {
    const { h, broker, wrap } = setup(['gemini']);
    const file = h.userFile('gemini');
    const original = readFileSync(file, 'utf8');
    await wrap('gemini');
    const wrapped = readFileSync(file, 'utf8');
    const undo = makeUnwritable(dirname(file));
    try {
      await expect(broker.unwrapClient('gemini', {})).rejects.toThrow(/could not write .*the file is unchanged/);
      expect(readFileSync(file, 'utf8')).toBe(wrapped);
      expect((await broker.listClients()).find((c) => c.id === 'gemini')!.canUnwrap).toBe(true);
      expect((await broker.queryLog({})).filter((e) => e.kind === 'client').map((e) => [e.tool, e.status])).toEqual([
        ['wrap', 'ok'],
        ['unwrap', 'failed'],
      ]);
    } finally {
      undo();
    }
    await broker.unwrapClient('gemini', {});
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('a byte order mark stays, and a one-line entry stays on one line', async () => {
    const { core, h, broker, wrap } = setup(['cursor']);
    const file = h.userFile('cursor');
    const text = '\ufeff{ "mcpServers": { "t": { "command": "uvx", "args": ["mcp-server-time" /* mine */], "env": { "TZ": "UTC" } } } }\n';
    writeFileSync(file, text);
    await wrap('cursor');
    const after = readFileSync(file, 'utf8');
    expect(after.charCodeAt(0)).toBe(0xfeff);
    expect(after.split('\n')).toHaveLength(2);
    expect(after).toContain("/* described args before Countersign's wrap: mine */");
    expect(after).not.toContain('UTC');
    expect(core.store.getServer('t')).toEqual({ command: 'uvx', args: ['mcp-server-time'], env: { TZ: 'UTC' } });
    await broker.unwrapClient('cursor', {});
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
