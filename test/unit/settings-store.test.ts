import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SettingsError, SettingsStore, parseServerConfig, validateServerName } from '../../electron/broker/store/settings-store.js';
import { makeUnwritable } from '../helpers/unwritable.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-settings-'));
  temps.push(dir);
  return dir;
}
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const open = (dataDir: string) => SettingsStore.open({ dataDir });
const fileJson = (store: SettingsStore) => JSON.parse(fs.readFileSync(store.path, 'utf8'));
const asideFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith('settings.json.corrupt-'));
const DEFAULTS = { approvalTimeoutSeconds: 120, upstreamTimeoutSeconds: 300, theme: 'system' };

describe('SettingsStore basics', () => {
  it('starts from safe defaults in <dataDir>/settings.json, readable only by the user', () => {
    const dir = tempDir();
    const { store, warnings } = open(dir);
    expect(warnings).toEqual([]);
    expect(store.path).toBe(path.join(dir, 'settings.json'));
    expect(store.listServers()).toEqual({});
    expect(store.listRules()).toEqual([]);
    expect(store.getSettings()).toEqual(DEFAULTS);
    const data = fileJson(store);
    expect(data).toMatchObject({ schemaVersion: 1, servers: {}, trusted: {}, rules: [], settings: DEFAULTS });
    expect(data).not.toHaveProperty('__internal__');
    if (process.platform !== 'win32') expect(fs.statSync(store.path).mode & 0o777).toBe(0o600);
  });

  it('round-trips servers, trust, rules and settings across a fresh open', () => {
    const dir = tempDir();
    const { store } = open(dir);
    store.addServer('files', { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: '/tmp' });
    store.addServer('remote.api', { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
    store.setTrusted('files', true);
    const rule = store.addRule('remote.api', 'search');
    store.updateSettings({ theme: 'dark', approvalTimeoutSeconds: 30 });

    const again = open(dir).store;
    expect(again.listServers()).toEqual({
      files: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: '/tmp' },
      'remote.api': { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
    });
    expect(again.getServer('remote.api')).toEqual({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } });
    expect(again.isTrusted('files')).toBe(true);
    expect(again.isTrusted('remote.api')).toBe(false);
    expect(again.listRules()).toEqual([rule]);
    expect(again.getSettings()).toEqual({ approvalTimeoutSeconds: 30, upstreamTimeoutSeconds: 300, theme: 'dark' });
    // Dotted names are keys, not paths.
    expect(Object.keys(fileJson(again).servers)).toEqual(['files', 'remote.api']);

    again.setTrusted('files', false);
    again.removeRule(rule.id);
    again.removeServer('remote.api');
    const third = open(dir).store;
    expect(third.isTrusted('files')).toBe(false);
    expect(third.listRules()).toEqual([]);
    expect(Object.keys(third.listServers())).toEqual(['files']);
  });

  it('rejects bad names, duplicates and bad configs', () => {
    const { store } = open(tempDir());
    store.addServer('a', { command: 'x' });
    expect(() => store.addServer('a', { command: 'y' })).toThrow(/already exists/);
    for (const bad of ['', '-lead', '.hidden', 'has space', 'x'.repeat(65), '__proto__', 'a/b']) {
      expect(() => store.addServer(bad, { command: 'x' }), bad).toThrow(SettingsError);
    }
    for (const config of [
      { command: '' },
      { url: 'ftp://example.com' },
      { url: 'not a url' },
      { command: 'x', url: 'https://example.com' },
      {},
      { command: 'x', args: 'not-an-array' },
      { command: 'x', extra: true },
      { url: 'https://example.com', headers: { A: 1 } },
    ]) {
      expect(() => store.addServer('b', config as never), JSON.stringify(config)).toThrow(SettingsError);
    }
    expect(store.getServer('a')).toEqual({ command: 'x' });
    expect(store.getServer('b')).toBeUndefined();
    expect(store.getServer('constructor')).toBeUndefined(); // no prototype leaks
  });

  it('removing a server drops its trust and rules; unknown servers throw', () => {
    const dir = tempDir();
    const { store } = open(dir);
    store.addServer('a', { command: 'x' });
    store.addServer('b', { command: 'y' });
    store.setTrusted('a', true);
    store.addRule('a', 'write');
    const keep = store.addRule('b', 'read');
    store.removeServer('a');
    expect(store.isTrusted('a')).toBe(false);
    expect(store.listRules()).toEqual([keep]);
    expect(fileJson(store).trusted).toEqual({});
    expect(() => store.removeServer('a')).toThrow(SettingsError);
    expect(() => store.setTrusted('nope', true)).toThrow(SettingsError);
    expect(() => store.addRule('nope', 'tool')).toThrow(SettingsError);
    expect(store.isTrusted('nope')).toBe(false);
  });

  it('a new server starts untrusted even if the file had stale trust and rules for its name', () => {
    const dir = tempDir();
    const { store } = open(dir);
    const data = fileJson(store);
    data.trusted = { ghost: true };
    data.rules = [{ id: 'r1', server: 'ghost', tool: 't', action: 'allow', createdAt: 'x' }];
    fs.writeFileSync(store.path, JSON.stringify(data));
    expect(store.isTrusted('ghost')).toBe(false);
    store.addServer('ghost', { command: 'x' });
    expect(store.isTrusted('ghost')).toBe(false);
    expect(store.listRules()).toEqual([]);
  });

  it('addRule is idempotent per server and tool; removeRule throws for unknown ids', () => {
    const { store } = open(tempDir());
    store.addServer('a', { command: 'x' });
    const first = store.addRule('a', 'read');
    expect(first).toMatchObject({ server: 'a', tool: 'read', action: 'allow' });
    expect(store.addRule('a', 'read')).toEqual(first);
    const other = store.addRule('a', 'write');
    expect(other.id).not.toBe(first.id);
    expect(store.listRules()).toEqual([first, other]);
    expect(() => store.addRule('a', '')).toThrow(SettingsError);
    expect(() => store.removeRule('missing')).toThrow(SettingsError);
  });

  it('scoped, expiring rules round-trip; an expired rule is dropped when a new one is saved; updateRule edits the end and the guard', () => {
    const dir = tempDir();
    const { store } = open(dir);
    store.addServer('fs', { command: 'x' });
    const scoped = store.addRule('fs', 'write_file', {
      scope: { kind: 'under', dir: '/p/src', keys: ['path'] },
      expiresAt: '2999-01-01T00:00:00.000Z',
      definitionHash: 'a'.repeat(64),
    });
    const exact = store.addRule('fs', 'write_file', { scope: { kind: 'exact', arguments: '{"path":"/p/x"}' }, coversExfiltration: true });
    const same = store.addRule('fs', 'edit_file', {
      scope: { kind: 'same-target', targets: [{ key: 'path', path: '/p/y' }] },
      expiresAt: '2000-01-01T00:00:00.000Z',
    });
    expect(
      store.addRule('fs', 'write_file', {
        scope: { kind: 'under', dir: '/p/src', keys: ['path'] },
        expiresAt: '2999-01-01T00:00:00.000Z',
        definitionHash: 'a'.repeat(64),
      }),
    ).toEqual(scoped);
    // Saving again dropped the expired one; a fresh open validates the scopes against the file's schema.
    const again = open(dir);
    expect(again.warnings).toEqual([]);
    expect(again.store.listRules()).toEqual([scoped, exact]);
    expect(same.id).not.toBe(scoped.id);
    const edited = again.store.updateRule(scoped.id, { expiresAt: undefined, coversExfiltration: true });
    expect(edited).toEqual({ ...scoped, expiresAt: undefined, coversExfiltration: true } as typeof edited);
    expect(open(dir).store.listRules()[0]).not.toHaveProperty('expiresAt');
  });

  it('validates settings ranges and keys, and ignores undefined values', () => {
    const { store } = open(tempDir());
    for (const patch of [
      { approvalTimeoutSeconds: 0 },
      { approvalTimeoutSeconds: 86_401 },
      { upstreamTimeoutSeconds: 1.5 },
      { upstreamTimeoutSeconds: '10' },
      { theme: 'neon' },
      { colour: 'red' },
    ]) {
      expect(() => store.updateSettings(patch as never), JSON.stringify(patch)).toThrow(SettingsError);
    }
    expect(store.getSettings()).toEqual(DEFAULTS);
    expect(store.updateSettings({ approvalTimeoutSeconds: 1, upstreamTimeoutSeconds: 86_400, theme: undefined })).toEqual({
      approvalTimeoutSeconds: 1,
      upstreamTimeoutSeconds: 86_400,
      theme: 'system',
    });
    expect(store.getSettings().upstreamTimeoutSeconds).toBe(86_400);
  });

  it('a second instance (another process) sees changes at once, both ways', () => {
    const dir = tempDir();
    const broker = open(dir).store;
    const cli = open(dir).store;
    cli.addServer('a', { command: 'x' });
    expect(broker.getServer('a')).toEqual({ command: 'x' });
    broker.setTrusted('a', true);
    expect(cli.isTrusted('a')).toBe(true);
    cli.removeServer('a');
    expect(broker.isTrusted('a')).toBe(false);
    expect(broker.listServers()).toEqual({});
  });

  it('starts again from defaults if the file is deleted while running', () => {
    const dir = tempDir();
    const { store } = open(dir);
    store.addServer('a', { command: 'x' });
    fs.rmSync(store.path);
    expect(store.listServers()).toEqual({});
    expect(store.getSettings()).toEqual(DEFAULTS);
    store.addServer('b', { command: 'y' });
    expect(Object.keys(open(dir).store.listServers())).toEqual(['b']);
  });
});

describe('SettingsStore corrupt files', () => {
  function expectMovedAside(dir: string, warning: string | undefined, original: string): void {
    const aside = asideFiles(dir);
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^settings\.json\.corrupt-\d{4}-\d\d-\d\dT\d{6}\.\d{3}Z$/);
    const moved = path.join(dir, aside[0]!);
    expect(fs.readFileSync(moved, 'utf8')).toBe(original);
    expect(warning).toContain(`Settings file ${path.join(dir, 'settings.json')} could not be read (`);
    expect(warning).toContain(`it was moved to ${moved}. Countersign started with safe defaults: no server is trusted.`);
  }

  it('moves unparsable JSON aside, keeps its bytes, and starts with nothing trusted', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'settings.json'), '{not json');
    const { store, warnings } = open(dir);
    expect(warnings).toHaveLength(1);
    expectMovedAside(dir, warnings[0], '{not json');
    expect(warnings[0]).toContain('not valid JSON');
    expect(store.listServers()).toEqual({});
    expect(store.isTrusted('anything')).toBe(false);
    store.addServer('a', { command: 'x' });
    expect(open(dir)).toMatchObject({ warnings: [] });
    expect(open(dir).store.getServer('a')).toEqual({ command: 'x' });
  });

  it('moves a file that fails the schema aside, byte for byte', () => {
    const dir = tempDir();
    const original = JSON.stringify({
      schemaVersion: 1,
      servers: { a: { command: 'x' } },
      trusted: 'yes',
      rules: [],
      settings: DEFAULTS,
      __internal__: { migrations: { version: '0.1.0' } },
    });
    fs.writeFileSync(path.join(dir, 'settings.json'), original);
    const { store, warnings } = open(dir);
    expectMovedAside(dir, warnings[0], original);
    expect(warnings[0]).toMatch(/trusted/);
    expect(store.isTrusted('a')).toBe(false);
    expect(store.listServers()).toEqual({});
  });

  it('keeps the original bytes even when a migration rewrote the file before the schema check', () => {
    const dir = tempDir();
    const original = '{"servers":{"a":{"command":"x"}},"trusted":{"a":"yes"}}';
    fs.writeFileSync(path.join(dir, 'settings.json'), original);
    const { store, warnings } = open(dir);
    expectMovedAside(dir, warnings[0], original);
    expect(store.isTrusted('a')).toBe(false);
  });

  it.each([['null'], ['[1,2]'], ['42']])('moves aside JSON that is not an object: %s', (original) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'settings.json'), original);
    const { store, warnings } = open(dir);
    expectMovedAside(dir, warnings[0], original);
    expect(store.listServers()).toEqual({});
  });

  it('in a read-only folder, an unreadable file stays (never written over) and nothing is trusted', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'settings.json'), '{"servers": {"a": {"command": ');
    const restore = makeUnwritable(dir);
    try {
      const { store, warnings } = open(dir);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /could not be read \(it is not valid JSON: .*\); it could not be moved aside, so it is ignored and nothing is saved until it is moved away\. Countersign started with safe defaults: no server is trusted\./,
      );
      expect(store.listServers()).toEqual({});
      expect(() => store.addServer('b', { command: 'x' })).toThrow(/could not be moved aside: nothing was saved/);
      expect(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')).toBe('{"servers": {"a": {"command": ');
    } finally {
      restore();
    }
  });

  it('recovers from corruption after open and tells the listeners', () => {
    const dir = tempDir();
    const { store } = open(dir);
    store.addServer('a', { command: 'x' });
    store.setTrusted('a', true);
    const seen: string[] = [];
    const unsubscribe = store.onWarning((w) => seen.push(w));

    fs.writeFileSync(store.path, 'garbage!');
    expect(store.listServers()).toEqual({});
    expect(seen).toHaveLength(1);
    expectMovedAside(dir, seen[0], 'garbage!');
    expect(store.isTrusted('a')).toBe(false);
    store.addServer('b', { command: 'y' });
    expect(Object.keys(open(dir).store.listServers())).toEqual(['b']);

    unsubscribe();
    fs.writeFileSync(store.path, '{"schemaVersion":1,"servers":[]}');
    expect(store.isTrusted('b')).toBe(false);
    expect(seen).toHaveLength(1);
    expect(asideFiles(dir)).toHaveLength(2);
  });
});

describe('SettingsStore migrations and writes', () => {
  it('migrates a file from an older version, keeping its servers', () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'settings.json'),
      JSON.stringify({
        servers: { old: { command: 'legacy', args: ['--x'] } },
        settings: { theme: 'light' },
        __internal__: { migrations: { version: '0.0.1' } },
      }),
    );
    const { store, warnings } = open(dir);
    expect(warnings).toEqual([]);
    expect(store.listServers()).toEqual({ old: { command: 'legacy', args: ['--x'] } });
    expect(store.isTrusted('old')).toBe(false);
    expect(store.getSettings()).toEqual({ ...DEFAULTS, theme: 'light' });
    const data = fileJson(store);
    expect(data.schemaVersion).toBe(1);
    expect(data.rules).toEqual([]);
    expect(data).not.toHaveProperty('__internal__');
  });

  it('reads a file conf wrote (tabs, its __internal__ record) unchanged, and drops only that record on the next write', () => {
    const dir = tempDir();
    const rule = {
      id: 'r1',
      server: 'fs',
      tool: 'read_file',
      action: 'allow',
      createdAt: '2026-11-01T10:00:00.000Z',
      scope: { kind: 'under', dir: '/p', keys: ['path'] },
      expiresAt: '2999-01-01T00:00:00.000Z',
    };
    const written = {
      schemaVersion: 1,
      servers: {
        fs: {
          command: 'node',
          args: ['server.js', '/p'],
          env: { TOKEN: 't' },
          limits: { network: 'none', filesystem: { read: ['/p'], write: [] }, passEnv: [] },
        },
        'remote.api': { url: 'https://example.com/mcp' },
      },
      trusted: { fs: true },
      rules: [rule],
      settings: { approvalTimeoutSeconds: 30, upstreamTimeoutSeconds: 300, theme: 'dark', policyPath: '/etc/countersign/policy.json' },
      __internal__: { migrations: { version: '0.1.0' } },
    };
    const bytes = JSON.stringify(written, undefined, '\t');
    fs.writeFileSync(path.join(dir, 'settings.json'), bytes, { mode: 0o600 });
    const { store, warnings } = open(dir);
    expect(warnings).toEqual([]);
    const { __internal__: _conf, ...rest } = written;
    expect(store.listServers()).toEqual(rest.servers);
    expect(store.isTrusted('fs')).toBe(true); // no seal in this store: the file alone counts
    expect(store.listRules()).toEqual([rule]);
    expect(store.getSettings()).toEqual(rest.settings);
    expect(asideFiles(dir)).toEqual([]);
    // Migrated once, at open: the same content without conf's record.
    expect(fileJson(store)).toEqual(rest);
    store.updateSettings({ theme: 'light' });
    expect(fileJson(store)).toEqual({ ...rest, settings: { ...rest.settings, theme: 'light' } });
  });

  it('leaves a current file untouched at open (no rewrite)', () => {
    const dir = tempDir();
    open(dir).store.addServer('a', { command: 'x' });
    const before = fs.statSync(path.join(dir, 'settings.json'), { bigint: true });
    const bytes = fs.readFileSync(path.join(dir, 'settings.json'));
    open(dir);
    expect(fs.readFileSync(path.join(dir, 'settings.json'))).toEqual(bytes);
    expect(fs.statSync(path.join(dir, 'settings.json'), { bigint: true }).ino).toBe(before.ino);
  });

  it('never writes the settings file in place (a crash cannot leave half a file)', () => {
    const dir = tempDir();
    const { store } = open(dir);
    const spy = vi.spyOn(fs, 'writeFileSync');
    store.addServer('a', { command: 'x' });
    store.setTrusted('a', true);
    expect(spy.mock.calls.filter(([target]) => target === store.path)).toEqual([]);
    expect(open(dir).store.isTrusted('a')).toBe(true);
    expect(fs.readdirSync(dir).sort()).toEqual(['settings.json']); // no temp files left
  });
});

describe('validateServerName and parseServerConfig', () => {
  it('accepts the documented name shape only', () => {
    expect(validateServerName('a')).toBeUndefined();
    expect(validateServerName('A1._-z'.padEnd(64, 'x'))).toBeUndefined();
    expect(validateServerName('A1._-z'.padEnd(65, 'x'))).toBeTypeOf('string');
    expect(validateServerName('_a')).toBeTypeOf('string');
  });

  it('returns exactly the given config shape', () => {
    expect(parseServerConfig({ command: 'node', args: [] })).toEqual({ command: 'node', args: [] });
    expect(parseServerConfig({ url: 'HTTP://localhost:3000/mcp' })).toEqual({ url: 'HTTP://localhost:3000/mcp' });
    expect(() => parseServerConfig(null)).toThrow(SettingsError);
    expect(() => parseServerConfig({ url: ' https://example.com' })).toThrow(SettingsError);
    expect(() => parseServerConfig({ url: 'javascript:alert(1)' })).toThrow(SettingsError);
  });
});
