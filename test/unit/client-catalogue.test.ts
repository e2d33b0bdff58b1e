// Where each client keeps its config on each OS, how entries that already go through Countersign are
// recognised, which placeholders can be filled in, and the TOML map that edits rely on.
import { describe, expect, it } from 'vitest';
import { clientDef, knownClientConfigPaths, locationsOf, CLIENTS } from '../../electron/broker/clients/catalogue.js';
import { lostComments, tomlComments } from '../../electron/broker/clients/comments.js';
import { parseCountersignArgv } from '../../electron/broker/clients/countersign-entry.js';
import { chooseName, sanitizeName } from '../../electron/broker/clients/naming.js';
import { resolvePlaceholders, type PlaceholderContext } from '../../electron/broker/clients/placeholders.js';
import { scanToml, tomlValue } from '../../electron/broker/clients/toml-scan.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';

describe('knownClientConfigPaths', () => {
  it('macOS: Application Support for desktop apps and VS Code extensions, dot folders and ~/.config for the rest, then the project files', () => {
    expect(knownClientConfigPaths('/Users/me', 'darwin', {}, ['/Users/me/src/app'])).toEqual([
      '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      '/Users/me/.claude.json',
      '/Users/me/src/app/.mcp.json',
      '/Users/me/.cursor/mcp.json',
      '/Users/me/src/app/.cursor/mcp.json',
      '/Users/me/Library/Application Support/Code/User/mcp.json',
      '/Users/me/Library/Application Support/Code/User/settings.json',
      '/Users/me/Library/Application Support/Code - Insiders/User/mcp.json',
      '/Users/me/Library/Application Support/Code - Insiders/User/settings.json',
      '/Users/me/src/app/.vscode/mcp.json',
      '/Users/me/src/app/.vscode/settings.json',
      '/Users/me/.codeium/windsurf/mcp_config.json',
      '/Users/me/.codex/config.toml',
      '/Users/me/src/app/.codex/config.toml',
      '/Users/me/.gemini/settings.json',
      '/Users/me/src/app/.gemini/settings.json',
      '/Users/me/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      '/Users/me/Library/Application Support/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      '/Users/me/Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      '/Users/me/Library/Application Support/VSCodium/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      '/Users/me/Library/Application Support/Windsurf/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      '/Users/me/.cline/data/settings/cline_mcp_settings.json',
      '/Users/me/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/Users/me/Library/Application Support/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/Users/me/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/Users/me/Library/Application Support/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/Users/me/Library/Application Support/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/Users/me/src/app/.roo/mcp.json',
      '/Users/me/.continue/config.yaml',
      '/Users/me/.continue/mcpServers',
      '/Users/me/src/app/.continue/mcpServers',
      '/Users/me/.config/crush/crush.json',
      '/Users/me/src/app/.crush.json',
      '/Users/me/src/app/crush.json',
      '/Users/me/.config/goose/config.yaml',
      '/Users/me/.kiro/settings/mcp.json',
      '/Users/me/src/app/.kiro/settings/mcp.json',
      '/Users/me/.lmstudio/mcp.json',
      '/Users/me/.cache/lm-studio/mcp.json',
      '/Users/me/.config/opencode/opencode.json',
      '/Users/me/.config/opencode/opencode.jsonc',
      '/Users/me/src/app/opencode.json',
      '/Users/me/src/app/opencode.jsonc',
      '/Users/me/src/app/.opencode/opencode.json',
      '/Users/me/src/app/.opencode/opencode.jsonc',
      '/Users/me/.config/zed/settings.json',
      '/Users/me/src/app/.zed/settings.json',
      '/Users/me/.aws/amazonq/mcp.json',
      '/Users/me/.aws/amazonq/agents/default.json',
      '/Users/me/src/app/.amazonq/mcp.json',
      '/Users/me/.copilot/mcp-config.json',
    ]);
  });

  it('Windows: %APPDATA% for desktop apps (goose under Block, Zed), %LOCALAPPDATA% for Crush, the profile folder for the rest', () => {
    const paths = knownClientConfigPaths('C:\\Users\\me', 'win32', {
      APPDATA: 'C:\\Users\\me\\AppData\\Roaming',
      LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local',
    });
    expect(paths).toEqual([
      'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      'C:\\Users\\me\\.claude.json',
      'C:\\Users\\me\\.cursor\\mcp.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code - Insiders\\User\\mcp.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code - Insiders\\User\\settings.json',
      'C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json',
      'C:\\Users\\me\\.codex\\config.toml',
      'C:\\Users\\me\\.gemini\\settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code - Insiders\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Cursor\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\VSCodium\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Windsurf\\User\\globalStorage\\saoudrizwan.claude-dev\\settings\\cline_mcp_settings.json',
      'C:\\Users\\me\\.cline\\data\\settings\\cline_mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Code - Insiders\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Cursor\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\VSCodium\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json',
      'C:\\Users\\me\\AppData\\Roaming\\Windsurf\\User\\globalStorage\\rooveterinaryinc.roo-cline\\settings\\mcp_settings.json',
      'C:\\Users\\me\\.continue\\config.yaml',
      'C:\\Users\\me\\.continue\\mcpServers',
      'C:\\Users\\me\\AppData\\Local\\crush\\crush.json',
      'C:\\Users\\me\\AppData\\Roaming\\Block\\goose\\config\\config.yaml',
      'C:\\Users\\me\\.kiro\\settings\\mcp.json',
      'C:\\Users\\me\\.lmstudio\\mcp.json',
      'C:\\Users\\me\\.cache\\lm-studio\\mcp.json',
      'C:\\Users\\me\\.config\\opencode\\opencode.json',
      'C:\\Users\\me\\.config\\opencode\\opencode.jsonc',
      'C:\\Users\\me\\AppData\\Roaming\\Zed\\settings.json',
      'C:\\Users\\me\\.aws\\amazonq\\mcp.json',
      'C:\\Users\\me\\.aws\\amazonq\\agents\\default.json',
      'C:\\Users\\me\\.copilot\\mcp-config.json',
    ]);
  });

  it('Linux: XDG_CONFIG_HOME when absolute, CODEX_HOME and CLAUDE_CONFIG_DIR, and a project at home counts once', () => {
    const paths = knownClientConfigPaths(
      '/home/me',
      'linux',
      { XDG_CONFIG_HOME: '/home/me/.xdg', CODEX_HOME: '/opt/codex', CLAUDE_CONFIG_DIR: '/home/me/.claude-alt' },
      ['/home/me'],
    );
    expect(paths).toContain('/home/me/.xdg/Claude/claude_desktop_config.json');
    expect(paths).toContain('/home/me/.xdg/claude/claude_desktop_config.json');
    expect(paths).toContain('/home/me/.xdg/Code/User/mcp.json');
    expect(paths).toContain('/home/me/.xdg/Code/User/settings.json');
    expect(paths).toContain('/opt/codex/config.toml');
    expect(paths).toContain('/home/me/.claude-alt/.claude.json');
    expect(paths).toContain('/home/me/.mcp.json');
    expect(paths.filter((p) => p === '/home/me/.cursor/mcp.json')).toHaveLength(1);
    expect(knownClientConfigPaths('/home/me', 'linux', { XDG_CONFIG_HOME: 'relative' })).toContain('/home/me/.config/Code/User/mcp.json');
  });

  it('Linux: the newer clients under XDG_CONFIG_HOME, and their own overrides', () => {
    const xdg = knownClientConfigPaths('/home/me', 'linux', { XDG_CONFIG_HOME: '/home/me/.xdg' });
    for (const p of [
      '/home/me/.xdg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json',
      '/home/me/.xdg/Cursor/User/globalStorage/rooveterinaryinc.roo-cline/settings/mcp_settings.json',
      '/home/me/.xdg/crush/crush.json',
      '/home/me/.xdg/goose/config.yaml',
      '/home/me/.xdg/opencode/opencode.json',
      '/home/me/.xdg/zed/settings.json',
      '/home/me/.copilot/mcp-config.json',
      '/home/me/.xdg/.copilot/mcp-config.json',
      '/home/me/.continue/config.yaml',
      '/home/me/.continue/mcpServers',
    ])
      expect(xdg).toContain(p);
    const own = knownClientConfigPaths('/home/me', 'linux', {
      COPILOT_HOME: '/opt/copilot',
      CONTINUE_GLOBAL_DIR: '/opt/continue',
      CRUSH_GLOBAL_CONFIG: '/opt/crush',
      OPENCODE_CONFIG: '/opt/oc.json',
    });
    for (const p of ['/opt/copilot/mcp-config.json', '/opt/continue/config.yaml', '/opt/continue/mcpServers', '/opt/crush/crush.json', '/opt/oc.json'])
      expect(own).toContain(p);
    expect(own).not.toContain('/home/me/.copilot/mcp-config.json');
  });

  it("lists the files of a folder of config files (Continue's mcpServers), user and project", () => {
    const where = { home: '/home/me', platform: 'linux' as const, env: {} };
    const listed = locationsOf(clientDef('continue')!, where, ['/src/app'], (dir) => (dir.endsWith('mcpServers') ? [`${dir}/a.yaml`, `${dir}/b.json`] : []));
    expect(listed.map((l) => [l.path, l.scope])).toEqual([
      ['/home/me/.continue/config.yaml', 'user'],
      ['/home/me/.continue/mcpServers/a.yaml', 'user'],
      ['/home/me/.continue/mcpServers/b.json', 'user'],
      ['/src/app/.continue/mcpServers/a.yaml', 'project'],
      ['/src/app/.continue/mcpServers/b.json', 'project'],
    ]);
  });
});

describe('parseCountersignArgv', () => {
  it('recognises every way of naming Countersign, and reads --client and --data-dir', () => {
    expect(parseCountersignArgv(['/usr/bin/node', '/opt/countersign/bin/countersign.mjs', 'connect', 'fs', '--client', 'cursor', '--data-dir', '/d'])).toEqual({
      server: 'fs',
      client: 'cursor',
      dataDir: '/d',
      viaRegistry: false,
    });
    expect(parseCountersignArgv(['countersign', 'connect', 'fs'])).toEqual({ server: 'fs', viaRegistry: false });
    expect(parseCountersignArgv(['C:\\Program Files\\Countersign\\countersign.exe', 'connect', 'fs', '--client=vscode'])).toEqual({
      server: 'fs',
      client: 'vscode',
      viaRegistry: false,
    });
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
  const left = (style: Parameters<typeof resolvePlaceholders>[0], text: string, c: PlaceholderContext = ctx) =>
    resolvePlaceholders(style, text, c).unresolved.map((u) => [u.text, u.kind, u.name]);
  it('fills in what has a fixed meaning and reports the rest as written, with what kind of value each is', () => {
    expect(resolvePlaceholders('vscode', '${workspaceFolder}/docs:${userHome}${/}x', ctx)).toEqual({ value: '/home/me/app/docs:/home/me/x', unresolved: [] });
    expect(left('vscode', '${input:key} ${env:HOME} ${workspaceFolder} ${command:x}', { ...ctx, project: undefined })).toEqual([
      ['${input:key}', 'input', undefined],
      ['${env:HOME}', 'env', 'HOME'],
      ['${workspaceFolder}', 'workspace', undefined],
      ['${command:x}', 'other', undefined],
    ]);
    expect(left('claude-code', 'Bearer ${TOKEN:-none} ${KEY} $NOT')).toEqual([
      ['${TOKEN:-none}', 'other', undefined],
      ['${KEY}', 'env', 'KEY'],
    ]);
    expect(left('gemini', '$HOME/x ${KEY}')).toEqual([
      ['$HOME', 'env', 'HOME'],
      ['${KEY}', 'env', 'KEY'],
    ]);
    expect(left('windsurf', '${env:A} ${file:/k} ${other}')).toEqual([
      ['${env:A}', 'env', 'A'],
      ['${file:/k}', 'other', undefined],
    ]);
    expect(left('env-colon', '${env:A} ${B}')).toEqual([['${env:A}', 'env', 'A']]);
    expect(left('shell', '$(cat /k) $A ${B}')).toEqual([
      ['$(cat /k)', 'other', undefined],
      ['$A', 'env', 'A'],
      ['${B}', 'env', 'B'],
    ]);
    expect(left('continue', '${{ secrets.TOKEN }} ${X}')).toEqual([['${{ secrets.TOKEN }}', 'other', undefined]]);
    expect(left('opencode', '{env:A} {file:~/k} ${B}')).toEqual([
      ['{env:A}', 'env', 'A'],
      ['{file:~/k}', 'other', undefined],
    ]);
    expect(resolvePlaceholders('none', '${input:x}', ctx)).toEqual({ value: '${input:x}', unresolved: [] });
  });

  it('every client has a placeholder style, a dialect and at least one user path on each OS', () => {
    expect(CLIENTS.length).toBeGreaterThanOrEqual(16);
    for (const c of CLIENTS) {
      for (const platform of ['linux', 'darwin', 'win32'] as const)
        expect(c.user({ home: platform === 'win32' ? 'C:\\Users\\me' : '/home/me', platform, env: {} }).length).toBeGreaterThan(0);
      expect(c.dialect.secrets.length).toBeGreaterThan(0);
    }
  });
});

describe('naming', () => {
  it('one name per launch; a clash gets the client as a suffix, then a number', () => {
    const fs = { command: 'npx', args: ['fs'] };
    const other = { command: 'npx', args: ['other'] };
    const taken = new Map([
      ['fs', launchHash(fs)],
      ['fs-cursor', launchHash({ command: 'x' })],
    ]);
    expect(chooseName('fs', fs, 'cursor', taken)).toEqual({ name: 'fs', reuse: true });
    expect(chooseName('files', fs, 'cursor', taken)).toEqual({ name: 'fs', reuse: true, note: "the same server as Countersign's 'fs'" });
    expect(chooseName('fs', other, 'cursor', taken)).toMatchObject({ name: 'fs-cursor-2', reuse: false });
    expect(chooseName('fs', other, 'vscode', taken)).toEqual({
      name: 'fs-vscode',
      reuse: false,
      note: "named 'fs-vscode': Countersign's 'fs' starts a different command",
    });
    expect(sanitizeName('My Server (beta)')).toBe('My-Server-beta');
    expect(sanitizeName('@scope/pkg')).toBe('scope-pkg');
    expect(sanitizeName('***')).toBe('server');
  });

  it("keeps the letters of names in any script, within the broker's name rules", () => {
    expect(sanitizeName('Ünïcode server v2.1 ☃')).toBe('Unicode-server-v2.1-snowman2');
    expect(sanitizeName('Сервер файлов')).toBe('Server-faylov');
    expect(sanitizeName('東京 files')).toBe('DongJing-files');
    expect(sanitizeName('ｆｕｌｌｗｉｄｔｈ')).toBe('fullwidth');
    expect(sanitizeName('a\u200bb')).toBe('ab');
    for (const name of ['Ünïcode server v2.1 ☃', '🚀🚀🚀', 'x'.repeat(100), '---', 'é'])
      expect(sanitizeName(name)).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
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
    const kv = items
      .filter((i) => i.kind === 'kv')
      .map((i) => [i.kind === 'kv' ? [...i.table, ...i.key].join('|') : '', i.kind === 'kv' ? text.slice(i.valueStart, i.valueEnd) : '']);
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
