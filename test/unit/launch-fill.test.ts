import { describe, expect, it } from 'vitest';
import { clientDef } from '../../electron/broker/clients/catalogue.js';
import { interpretEntry } from '../../electron/broker/clients/entry.js';
import { parseHello } from '../../electron/broker/local/handshake.js';
import { launchHash } from '../../electron/broker/trust/launch-consent.js';
import { fillEnvEntries, fillLaunch, fillsFromEnv, FillRefusedError } from '../../electron/broker/trust/launch-fill.js';

const stored = {
  command: 'node',
  args: ['server.js', '${workspaceFolder}', '--label=${workspaceFolderBasename}', '${command:unknown}'],
  env: { API_KEY: '${input:api-key}', PLAIN: 'x' },
  cwd: '${workspaceFolder}/sub',
  fills: ['input:api-key', 'workspaceFolder', 'workspaceFolderBasename'],
};
const values = { 'input:api-key': 's3cret', workspaceFolder: '/w/a', workspaceFolderBasename: 'a' };

describe('fillLaunch', () => {
  it('fills only the declared placeholders, once (a value holding ${…} is not filled again)', () => {
    const { run } = fillLaunch('fs', stored, { ...values, workspaceFolder: '/w/${workspaceFolderBasename}' });
    expect(run).toEqual({
      command: 'node',
      args: ['server.js', '/w/${workspaceFolderBasename}', '--label=a', '${command:unknown}'],
      env: { API_KEY: 's3cret', PLAIN: 'x' },
      cwd: '/w/${workspaceFolderBasename}/sub',
    });
  });

  it('binds consent to exactly what runs: the filled command line and the filled env values', () => {
    const a = fillLaunch('fs', stored, values);
    expect(a.consent).toEqual(a.run);
    expect(a.consent).toMatchObject({ args: ['server.js', '/w/a', '--label=a', '${command:unknown}'], cwd: '/w/a/sub' });
    // Another folder: another launch. Another env value (a made-up key or URL): another launch too.
    expect(launchHash(fillLaunch('fs', stored, { ...values, workspaceFolder: '/w/b' }).consent)).not.toBe(launchHash(a.consent));
    expect(launchHash(fillLaunch('fs', stored, { ...values, 'input:api-key': 'other' }).consent)).not.toBe(launchHash(a.consent));
    expect(launchHash(fillLaunch('fs', stored, { ...values }).consent)).toBe(launchHash(a.consent));
  });

  it('refuses a value for a placeholder the launch does not declare, and a declared one without a value', () => {
    expect(() => fillLaunch('fs', stored, { ...values, 'command:unknown': 'rm' })).toThrow(/\$\{command:unknown\} is not a placeholder of its launch/);
    expect(() => fillLaunch('fs', stored, { workspaceFolder: '/w' })).toThrow(/the client did not fill \$\{input:api-key\}, \$\{workspaceFolderBasename\}/);
    const { fills: _none, ...plain } = stored;
    expect(() => fillLaunch('fs', plain, { workspaceFolder: '/w' })).toThrow(FillRefusedError);
    expect(fillLaunch('fs', plain).run).toBe(plain);
    expect(() => fillLaunch('web', { url: 'https://x.example/mcp' }, { workspaceFolder: '/w' })).toThrow(/has no placeholder/);
  });

  it('refuses a value filled at launch into a variable that decides what code runs', () => {
    for (const name of ['NODE_OPTIONS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'PYTHONPATH', 'PATH', 'node_options']) {
      const config = { command: 'node', env: { [name]: '--require ${input:x}' }, fills: ['input:x'] };
      expect(() => fillLaunch('fs', config, { 'input:x': '/tmp/evil.js' }), name).toThrow(/decides what code runs/);
    }
  });
});

describe('the values connect passes', () => {
  it('come from the env entries wrap writes, which the client expands', () => {
    const entries = fillEnvEntries(['input:api-key', 'workspaceFolder']);
    expect(entries).toEqual({ COUNTERSIGN_FILL_0: 'input:api-key=${input:api-key}', COUNTERSIGN_FILL_1: 'workspaceFolder=${workspaceFolder}' });
    // As the client starts connect: each value expanded, '=' in a value kept.
    expect(fillsFromEnv({ HOME: '/h', COUNTERSIGN_FILL_0: 'input:api-key=a=b', COUNTERSIGN_FILL_1: 'workspaceFolder=/w' })).toEqual({
      'input:api-key': 'a=b',
      workspaceFolder: '/w',
    });
    expect(fillsFromEnv({ HOME: '/h' })).toBeUndefined();
    expect(() => fillsFromEnv({ COUNTERSIGN_FILL_0: 'no-equals' })).toThrow(/not NAME=value/);
  });

  it('are bounded and checked in the hello', () => {
    const hello = (fills: unknown) => JSON.stringify({ countersign: 1, server: 'fs', fills });
    expect(parseHello(hello({ workspaceFolder: '/w' }))).toMatchObject({ server: 'fs', fills: { workspaceFolder: '/w' } });
    expect(parseHello(JSON.stringify({ countersign: 1, server: 'fs' }))).not.toHaveProperty('fills');
    expect(() => parseHello(hello(['/w']))).toThrow('bad fills');
    expect(() => parseHello(hello({ 'bad name}': 'x' }))).toThrow('bad fill name');
    expect(() => parseHello(hello({ workspaceFolder: 7 }))).toThrow('bad value');
    expect(() => parseHello(hello({ workspaceFolder: 'x'.repeat(4097) }))).toThrow('bad value');
    for (const c of ['\u0000', '\n', '\r', '\u001b', '\u007f']) expect(() => parseHello(hello({ workspaceFolder: `a${c}b` }))).toThrow('bad value');
    expect(() => parseHello(hello(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`input:k${i}`, 'v']))))).toThrow('more than 32 fills');
    expect(parseHello(hello(Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`input:k${i}`, 'v'.repeat(4096)]))))).toHaveProperty('fills');
  });
});

describe('wrap keeps what the client fills at launch, and says where it cannot', () => {
  const ctx = (id: string) => ({ client: clientDef(id)!, home: '/home/me', platform: 'linux' as const });
  const entry = (args: string[], env: Record<string, string> = {}) => ({ command: 'node', args, env });

  it('VS Code: ${input:…}, ${workspaceFolder} and ${env:…} stay, declared in fills', () => {
    const m = interpretEntry(entry(['s.js', '${workspaceFolder}', '--token=${env:TOKEN}'], { KEY: '${input:key}' }), ctx('vscode'));
    expect(m.problem).toBeUndefined();
    expect(m.config).toEqual({
      command: 'node',
      args: ['s.js', '${workspaceFolder}', '--token=${env:TOKEN}'],
      env: { KEY: '${input:key}' },
      fills: ['env:TOKEN', 'input:key', 'workspaceFolder'],
    });
  });

  it('Cursor has no ${input:…}; neither passes ${command:…}, a remote URL, or a loader variable', () => {
    expect(interpretEntry(entry(['${input:key}']), ctx('cursor')).problem).toMatch(
      /^\$\{input:key\} in args\[0\]: Cursor does not fill \$\{input:…\} variable when it starts a server/,
    );
    expect(interpretEntry(entry(['${workspaceFolder}']), ctx('cursor')).config).toMatchObject({ fills: ['workspaceFolder'] });
    expect(interpretEntry(entry(['${command:pick}']), ctx('vscode')).problem).toMatch(
      /is computed by VS Code when it starts the server, which Countersign cannot repeat/,
    );
    expect(interpretEntry({ url: 'https://x.example/${input:path}' }, ctx('vscode')).problem).toMatch(
      /\$\{input:path\} in url is filled by VS Code when it connects, and Countersign passes such values on only for a server it starts/,
    );
    expect(interpretEntry(entry([], { NODE_OPTIONS: '${input:opts}' }), ctx('vscode')).problem).toMatch(/variable that decides what code runs/);
    // Claude Code, Windsurf and Roo Code fill variables of their environment at launch: those stay too.
    expect(interpretEntry(entry(['--key=${KEY}']), ctx('claude-code')).config).toMatchObject({ args: ['--key=${KEY}'], fills: ['KEY'] });
    expect(interpretEntry(entry(['--key=${KEY:-none}']), ctx('claude-code')).problem).toMatch(/computed by Claude Code/);
    for (const id of ['windsurf', 'roo-code']) expect(interpretEntry(entry(['--key=${env:KEY}']), ctx(id)).config, id).toMatchObject({ fills: ['env:KEY'] });
    // Clients that do not fill at launch keep today's refusal, naming the client.
    expect(interpretEntry(entry(['--key=$KEY']), ctx('gemini')).problem).toMatch(/^\$KEY in args\[0\] is filled in by Gemini CLI from its environment/);
  });
});
