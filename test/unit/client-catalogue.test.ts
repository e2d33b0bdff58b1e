// Where each client keeps its config on each OS, how entries that already go through Countersign are
// recognised, which placeholders can be filled in, and the TOML map that edits rely on.
import { describe, expect, it } from 'vitest';
import { knownClientConfigPaths } from '../../electron/broker/clients/catalogue.js';
import { lostComments, tomlComments } from '../../electron/broker/clients/comments.js';
import { parseCountersignArgv } from '../../electron/broker/clients/countersign-entry.js';
import { chooseName, sanitizeName } from '../../electron/broker/clients/naming.js';
import { resolvePlaceholders } from '../../electron/broker/clients/placeholders.js';
import { scanToml, tomlValue } from '../../electron/broker/clients/toml-scan.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';

describe('knownClientConfigPaths', () => {
  it('macOS: Application Support for desktop apps, dot folders for the rest, then the project files', () => {
    expect(knownClientConfigPaths('/Users/me', 'darwin', {}, ['/Users/me/src/app'])).toEqual([
      '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      '/Users/me/.claude.json',
      '/Users/me/src/app/.mcp.json',
      '/Users/me/.cursor/mcp.json',
      '/Users/me/src/app/.cursor/mcp.json',
      '/Users/me/Library/Application Support/Code/User/mcp.json',
      '/Users/me/Library/Application Support/Code - Insiders/User/mcp.json',
      '/Users/me/src/app/.vscode/mcp.json',
      '/Users/me/.codeium/windsurf/mcp_config.json',
      '/Users/me/.codex/config.toml',
      '/Users/me/src/app/.codex/config.toml',
      '/Users/me/.gemini/settings.json',
      '/Users/me/src/app/.gemini/settings.json',
    ]);
  });

  it('Windows: %APPDATA% for desktop apps, the profile folder for the rest', () => {
    const paths = knownClientConfigPaths('C:\\Users\\me', 'win32', { APPDATA: 'C:\\Users\\me\\AppData\\Roaming' });
    expect(paths).toEqual([
      'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      'C:\\Users\\me\\.claude.json',
      'C:\\Users\\me\\.cursor\\mcp.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code - Insiders\\User\\mcp.json',
      'C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json',
      'C:\\Users\\me\\.codex\\config.toml',
      'C:\\Users\\me\\.gemini\\settings.json',
    ]);
  });

  it('Linux: XDG_CONFIG_HOME when absolute, CODEX_HOME and CLAUDE_CONFIG_DIR, and a project at home counts once', () => {
    const paths = knownClientConfigPaths('/home/me', 'linux', { XDG_CONFIG_HOME: '/home/me/.xdg', CODEX_HOME: '/opt/codex', CLAUDE_CONFIG_DIR: '/home/me/.claude-alt' }, ['/home/me']);
    expect(paths).toContain('/home/me/.xdg/Claude/claude_desktop_config.json');
    expect(paths).toContain('/home/me/.xdg/claude/claude_desktop_config.json');
    expect(paths).toContain('/home/me/.xdg/Code/User/mcp.json');
    expect(paths).toContain('/opt/codex/config.toml');
    expect(paths).toContain('/home/me/.claude-alt/.claude.json');
    expect(paths).toContain('/home/me/.mcp.json');
    expect(paths.filter((p) => p === '/home/me/.cursor/mcp.json')).toHaveLength(1);
    expect(knownClientConfigPaths('/home/me', 'linux', { XDG_CONFIG_HOME: 'relative' })).toContain('/home/me/.config/Code/User/mcp.json');
  });
});

describe('parseCountersignArgv', () => {
  it('recognises every way of naming Countersign, and reads --client and --data-dir', () => {
    expect(parseCountersignArgv(['/usr/bin/node', '/opt/countersign/bin/countersign.mjs', 'connect', 'fs', '--client', 'cursor', '--data-dir', '/d']))
      .toEqual({ server: 'fs', client: 'cursor', dataDir: '/d', viaRegistry: false });
    expect(parseCountersignArgv(['countersign', 'connect', 'fs'])).toEqual({ server: 'fs', viaRegistry: false });
    expect(parseCountersignArgv(['C:\\Program Files\\Countersign\\countersign.exe', 'connect', 'fs', '--client=vscode']))
      .toEqual({ server: 'fs', client: 'vscode', viaRegistry: false });
    expect(parseCountersignArgv(['npx', '-y', 'countersign@latest', 'connect', 'fs'])).toEqual({ server: 'fs', viaRegistry: true });
    expect(parseCountersignArgv(['npx', 'countersign', 'connect', 'fs', '--data-dir=/x'])).toEqual({ server: 'fs', dataDir: '/x', viaRegistry: true });
    expect(parseCountersignArgv(['node', '/src/countersign/dist/cli.mjs', 'connect', 'fs'])).toMatchObject({ server: 'fs', viaRegistry: false });
  });

  it('does not take other commands for Countersign', () => {
    expect(parseCountersignArgv(['npx', '-y', '@modelcontextprotocol/server-filesystem', 'connect'])).toBeUndefined();
    expect(parseCountersignArgv(['countersign', 'serve'])).toBeUndefined();
    expect(parseCountersignArgv(['countersign', 'connect', '--client', 'x'])).toBeUndefined();
    expect(parseCountersignArgv(['node', 'countersigned.js', 'connect', 'fs'])).toBeUndefined();
  });
});

describe('resolvePlaceholders', () => {
  const ctx = { home: '/home/me', platform: 'linux' as const, project: '/home/me/app' };
  it('fills in what has a fixed meaning and reports the rest as written', () => {
    expect(resolvePlaceholders('vscode', '${workspaceFolder}/docs:${userHome}${/}x', ctx)).toEqual({ value: '/home/me/app/docs:/home/me/x', unresolved: [] });
    expect(resolvePlaceholders('vscode', '${input:key} ${env:HOME} ${workspaceFolder}', { ...ctx, project: undefined }))
      .toEqual({ value: '${input:key} ${env:HOME} ${workspaceFolder}', unresolved: ['${input:key}', '${env:HOME}', '${workspaceFolder}'] });
    expect(resolvePlaceholders('claude-code', 'Bearer ${TOKEN:-none} $NOT', ctx).unresolved).toEqual(['${TOKEN:-none}']);
    expect(resolvePlaceholders('gemini', '$HOME/x ${KEY}', ctx).unresolved).toEqual(['$HOME', '${KEY}']);
    expect(resolvePlaceholders('windsurf', '${env:A} ${file:/k} ${other}', ctx).unresolved).toEqual(['${env:A}', '${file:/k}']);
    expect(resolvePlaceholders('none', '${input:x}', ctx)).toEqual({ value: '${input:x}', unresolved: [] });
  });
});

describe('naming', () => {
  it('one name per launch; a clash gets the client as a suffix, then a number', () => {
    const fs = { command: 'npx', args: ['fs'] };
    const other = { command: 'npx', args: ['other'] };
    const taken = new Map([['fs', launchHash(fs)], ['fs-cursor', launchHash({ command: 'x' })]]);
    expect(chooseName('fs', fs, 'cursor', taken)).toEqual({ name: 'fs', reuse: true });
    expect(chooseName('files', fs, 'cursor', taken)).toEqual({ name: 'fs', reuse: true, note: "the same server as Countersign's 'fs'" });
    expect(chooseName('fs', other, 'cursor', taken)).toMatchObject({ name: 'fs-cursor-2', reuse: false });
    expect(chooseName('fs', other, 'vscode', taken)).toEqual({ name: 'fs-vscode', reuse: false, note: "named 'fs-vscode': Countersign's 'fs' starts a different command" });
    expect(sanitizeName('My Server (beta)')).toBe('My-Server-beta-');
    expect(sanitizeName('@scope/pkg')).toBe('scope-pkg');
    expect(sanitizeName('***')).toBe('server');
  });
});

describe('scanToml', () => {
  it('finds each value exactly, through multi-line strings, arrays with comments and inline tables', () => {
    const text = [
      'a = """one',
      '# not a comment',
      'two"""',
      '[t."x.y"]',
      'list = [ "a", # note',
      "  'b]', ]  # after",
      'inline = { k = "v}" }',
      'when = 1979-05-27 07:32:00Z # a date',
      '',
    ].join('\n');
    const items = scanToml(text);
    const kv = items.filter((i) => i.kind === 'kv').map((i) => [i.kind === 'kv' ? [...i.table, ...i.key].join('|') : '', i.kind === 'kv' ? text.slice(i.valueStart, i.valueEnd) : '']);
    expect(kv).toEqual([
      ['a', '"""one\n# not a comment\ntwo"""'],
      ['t|x.y|list', '[ "a", # note\n  \'b]\', ]'],
      ['t|x.y|inline', '{ k = "v}" }'],
      ['t|x.y|when', '1979-05-27 07:32:00Z'],
    ]);
    expect(tomlComments(text, 0, text.length)).toEqual(['# note', '# after', '# a date']);
    expect(lostComments(['# a', '# b', '# a'], ['# a'])).toEqual(['# b', '# a']);
    expect(tomlValue({ 'a b': ['x', 1, true], c: '\u007f"' })).toBe('{ "a b" = ["x", 1, true], c = "\\u007f\\"" }');
  });
});
