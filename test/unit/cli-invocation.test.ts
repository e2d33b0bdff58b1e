// A guarded call that runs Countersign's own CLI is critical (issue 21, point 8): every spelling of the
// command a shell, exec or terminal tool could be given, and none of the prose that merely names it.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRun, isCountersignName } from '../../shared/cli-invocation.js';
import { isCritical } from '../../shared/protected-paths.js';
import { findProtected, scopeFor } from '../../electron/broker/checks/self-protection.js';

describe("what runs Countersign's CLI", () => {
  it.each<[string, unknown]>([
    ['a plain command', { command: 'countersign servers approve evil' }],
    ['an env prefix', { command: 'COUNTERSIGN_HOME=/x countersign servers approve evil' }],
    ['env(1)', { command: 'env -i PATH=/usr/bin countersign servers trust evil --yes' }],
    ['sh -c', { command: "sh -c 'countersign servers approve evil'" }],
    ['bash -lc after cd', { command: 'bash -lc "cd /tmp && countersign servers approve evil"' }],
    ['after ;', { command: 'echo ok; countersign servers approve evil' }],
    ['in $()', { command: 'x=$(countersign servers list)' }],
    ['sudo with a global flag', { command: 'sudo -u me countersign --data-dir /x servers approve evil' }],
    ['npx', { command: 'npx countersign servers approve evil' }],
    ['npx -y with a version', { command: 'npx -y countersign@latest servers approve evil' }],
    ['pnpm dlx', { command: 'pnpm dlx countersign wrap cursor --yes' }],
    ['node and the bin script', { command: 'node /opt/cs/bin/countersign.mjs servers approve evil' }],
    ['the macOS app with --cli', { command: '/Applications/Countersign.app/Contents/MacOS/Countersign --cli servers approve evil' }],
    ['the Windows app with --cli', { command: '"C:\\Program Files\\Countersign\\Countersign.exe" --cli servers approve evil' }],
    ['the Linux app with its switches', { command: '/opt/Countersign/countersign --ozone-platform=headless --disable-gpu --cli servers approve evil' }],
    ['an AppImage', { command: './Countersign-1.2.0.AppImage --cli servers approve evil' }],
    ['an argv array', { argv: ['countersign', 'servers', 'approve', 'evil'] }],
    ['command and args', { command: 'countersign', args: ['servers', 'approve', 'evil'] }],
    ['node and an argv', { program: 'node', args: ['/x/bin/countersign.mjs', 'servers', 'approve'] }],
    ['a backslash escape', { command: 'c\\ountersign servers approve evil' }],
    ['quotes inside the name', { command: 'counter"sign" servers approve evil' }],
    ['quoted words', { command: "'countersign' 'servers' approve evil" }],
    ['a quote inside the command word', { command: 'countersign "ser"vers approve evil' }],
    ['${IFS} for spaces', { command: 'countersign${IFS}servers${IFS}approve${IFS}evil' }],
    ['a glob for the name', { command: '/usr/local/bin/counters?gn servers approve evil' }],
    ['a star glob', { command: 'counter* servers approve evil' }],
    ['a Python list', { code: "subprocess.run(['countersign', 'servers', 'approve', 'evil'])" }],
    ['node -e', { command: `node -e "require('child_process').execSync('countersign servers approve evil')"` }],
    ['forwarded arguments', { script: 'countersign "$@"' }],
    ['nested deep', { a: { b: [{ c: 'countersign log --json' }] } }],
  ])('%s', (_name, args) => {
    expect(cliRun(args).excerpt).toBeDefined();
  });

  it.each<[string, unknown]>([
    ['prose naming it', { text: 'Countersign asks before each call.' }],
    ['a past tense', { text: 'She countersigned the form, then left.' }],
    ['the bare name (prints its usage)', { command: 'countersign' }],
    ['its key folder', { path: '~/.local/state/countersign-keys/x.key.json' }],
    ['a host name', { url: 'https://countersign.example.com/docs' }],
    ['a request to sign', { text: 'please countersign this letter' }],
  ])('not: %s', (_name, args) => {
    expect(cliRun(args).excerpt).toBeUndefined();
  });

  it('isCountersignName', () => {
    for (const n of [
      'countersign',
      'COUNTERSIGN.EXE',
      'countersign.mjs',
      'countersign@1.2.3',
      '@x/countersign',
      'Countersign-1.0.0.AppImage',
      'c*',
      'counter[s]ign',
      '[countersign',
    ]) {
      expect(isCountersignName(n), n).toBe(true);
    }
    for (const n of ['countersigned', 'countersign-keys', 'countersign.example.com', 'x*y', 'countersign2']) expect(isCountersignName(n), n).toBe(false);
  });
});

describe('in self-protection', () => {
  it('is critical for any tool, read-only or not, and a program that runs the CLI counts by its path too', () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'cs-cli-')));
    try {
      const bin = path.join(root, 'pkg', 'bin');
      mkdirSync(bin, { recursive: true });
      writeFileSync(path.join(bin, 'countersign.mjs'), '');
      symlinkSync(path.join(bin, 'countersign.mjs'), path.join(root, 'innocent.mjs'));
      const scope = scopeFor(
        [
          { path: path.join(root, 'data'), what: 'data' },
          { path: path.join(bin, 'countersign.mjs'), what: "Countersign's command line", runs: true },
        ],
        root,
        { HOME: root },
      );
      const named = findProtected({ command: 'countersign servers approve evil' }, { ...scope });
      expect(named.map((m) => [m.kind, m.what])).toEqual([['runs', "Countersign's command line"]]);
      expect(isCritical(named, true)).toBe(true);
      // Another name for the script: a symlink, run by node.
      expect(findProtected({ argv: ['node', './innocent.mjs', 'servers', 'approve'] }, { ...scope }).map((m) => m.kind)).toEqual(['runs']);
      // The folder that holds it is no program.
      expect(findProtected({ path: path.join(root, 'pkg') }, { ...scope })).toEqual([]);
      // The same answer after the scope crossed a socket (a `connect` lease carries it as JSON).
      expect(findProtected({ argv: ['node', './innocent.mjs'] }, JSON.parse(JSON.stringify(scope)))).toEqual(
        findProtected({ argv: ['node', './innocent.mjs'] }, { ...scope }),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
