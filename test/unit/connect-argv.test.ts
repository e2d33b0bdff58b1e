// dist/connect.mjs runs `connect` by itself only for a command line the full CLI would run without a usage
// error; anything else goes to the full CLI, which answers exactly as before.
import { describe, expect, it } from 'vitest';
import { plainConnect } from '../../electron/cli/connect-argv.js';

describe('plainConnect', () => {
  it('takes what wrap writes, and --data-dir anywhere', () => {
    expect(plainConnect(['connect', 'fs', '--client', 'cursor', '--data-dir', '/d'])).toEqual({ server: 'fs', client: 'cursor', dataDir: '/d' });
    expect(plainConnect(['--data-dir=/d', 'connect', 'fs'])).toEqual({ server: 'fs', dataDir: '/d', client: undefined });
    expect(plainConnect(['connect', 'fs', '--client=vscode'])).toEqual({ server: 'fs', client: 'vscode', dataDir: undefined });
  });

  it.each([
    ['no command', []],
    ['another command naming connect', ['servers', 'add', 'connect', '--', 'node', 'x.js']],
    ['no server', ['connect']],
    ['two servers', ['connect', 'a', 'b']],
    ['arguments after --', ['connect', 'a', '--', 'x']],
    ['an unknown option', ['connect', 'a', '--verbose']],
    ['a bad client id', ['connect', 'a', '--client', 'bad name!']],
    ['help', ['--help', 'connect']],
  ])('leaves %s to the full CLI', (_what, argv) => {
    expect(plainConnect(argv)).toBeUndefined();
  });
});
