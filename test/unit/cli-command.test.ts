// The command client entries name: absolute, from a checkout or the installed app, never a registry name.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appCommand, countersignCommand, formatCommand, stableNode, useInstalledApp, type NodeProbe } from '../../electron/broker/core/cli-command.js';
import { ROOT } from '../helpers/paths.js';

afterEach(() => useInstalledApp(undefined));

describe('countersignCommand', () => {
  it("from a checkout: this Node and the checkout's bin script, both absolute, and it runs", () => {
    const cmd = countersignCommand();
    expect(path.isAbsolute(cmd.command)).toBe(true);
    expect(cmd.args).toEqual([path.join(ROOT, 'bin', 'countersign.mjs')]);
    expect(execFileSync(cmd.command, [...cmd.args, '--help'], { encoding: 'utf8' })).toContain('countersign connect <server> [--client <id>]');
  });

  it('inside the installed app: the app itself in command-line mode, headless on Linux', () => {
    useInstalledApp({ exe: '/opt/Countersign/countersign', platform: 'linux' });
    expect(countersignCommand()).toEqual({ command: '/opt/Countersign/countersign', args: ['--ozone-platform=headless', '--disable-gpu', '--cli'] });
    expect(appCommand({ exe: '/Applications/Countersign.app/Contents/MacOS/Countersign', platform: 'darwin' }).args).toEqual(['--cli']);
    expect(appCommand({ exe: 'C:\\Users\\u\\AppData\\Local\\Programs\\Countersign\\Countersign.exe', platform: 'win32' }).args).toEqual(['--cli']);
  });

  it('refuses to guess when it is not inside a countersign package', () => {
    expect(() => countersignCommand('/tmp/elsewhere/x.js', '/usr/bin/node')).toThrow(/own package folder/);
  });
});

describe('stableNode', () => {
  const probe = (nodes: Record<string, number | undefined>, links: Record<string, string> = {}): NodeProbe => ({
    exists: (f) => f in nodes,
    realpath: (f) => links[f] ?? f,
    major: (f) => nodes[f],
  });
  const nvm = '/home/u/.nvm/versions/node/v20.11.0/bin/node';

  it('keeps a Node no version manager owns', () => {
    expect(stableNode('/usr/bin/node', 'linux', probe({}))).toEqual({ node: '/usr/bin/node' });
  });

  it("prefers a new-enough system Node to a version manager's", () => {
    expect(stableNode(nvm, 'linux', probe({ '/usr/local/bin/node': 22 }))).toEqual({ node: '/usr/local/bin/node' });
    expect(stableNode(nvm, 'darwin', probe({ '/opt/homebrew/bin/node': 24, '/usr/local/bin/node': 22 }))).toEqual({ node: '/opt/homebrew/bin/node' });
    // Node 20 is past its end of life and below what Countersign supports: the next one is taken.
    expect(stableNode(nvm, 'darwin', probe({ '/opt/homebrew/bin/node': 20, '/usr/local/bin/node': 22 }))).toEqual({ node: '/usr/local/bin/node' });
  });

  it("keeps the managed Node, with a note, when the system's is too old, missing, or a link back into the manager", () => {
    for (const p of [probe({ '/usr/bin/node': 18 }), probe({}), probe({ '/usr/local/bin/node': 22 }, { '/usr/local/bin/node': nvm })]) {
      const chosen = stableNode(nvm, 'linux', p);
      expect(chosen.node).toBe(nvm);
      expect(chosen.note).toMatch(/version manager.*uninstall/);
    }
  });
});

describe('formatCommand', () => {
  it('quotes only what a shell would split or expand', () => {
    expect(formatCommand({ command: '/usr/bin/node', args: ['/x/bin/countersign.mjs', 'connect'] }, 'linux')).toBe(
      '/usr/bin/node /x/bin/countersign.mjs connect',
    );
    expect(formatCommand({ command: '/Apps/My App/node', args: ["it's", '$HOME'] }, 'darwin')).toBe(`'/Apps/My App/node' 'it'\\''s' '$HOME'`);
    expect(formatCommand({ command: 'C:\\Program Files\\Countersign\\Countersign.exe', args: ['--cli'] }, 'win32')).toBe(
      '"C:\\Program Files\\Countersign\\Countersign.exe" --cli',
    );
  });
});
