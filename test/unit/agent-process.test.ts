// Finding the agent past its launchers: the launcher rules, the walk (with a fake process table), the
// readers of the real OS tables, and the real chain of this test's own processes.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findAgent, isLauncher, psTable, readLinuxProc, type ProcInfo } from '../../electron/cli/agent-process.js';
import { clientKey } from '../../electron/broker/calls/client-key.js';

const launcher = (...argv: string[]) => isLauncher({ argv });

describe('isLauncher', () => {
  it('sees the launchers clients use in front of connect', () => {
    expect(launcher('npm exec countersign connect fs')).toBe(true); // npm's title over its argv
    expect(launcher('npm exec counte')).toBe(true); // the same, cut to 15 bytes (comm)
    expect(launcher('/usr/bin/npx', 'countersign', 'connect', 'fs')).toBe(true);
    expect(launcher('/usr/bin/node', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'countersign')).toBe(true);
    expect(launcher('node', '--no-warnings', 'C:\\Program Files\\nodejs\\node_modules\\npm\\bin\\npm-cli.js', 'exec')).toBe(true);
    expect(launcher('sh', '-c', 'countersign connect fs')).toBe(true);
    expect(launcher('/bin/bash', '-lc', 'countersign connect fs')).toBe(true);
    expect(launcher('/usr/bin/env', 'node', 'bin/countersign.mjs')).toBe(true);
    expect(launcher('/home/u/.local/bin/uvx', 'mcp-server-fetch')).toBe(true);
    expect(launcher('uv', 'tool', 'run', 'thing')).toBe(true);
    expect(launcher('pnpm', 'dlx', 'thing')).toBe(true);
    expect(launcher('C:\\Windows\\System32\\cmd.exe', '/c', 'countersign.cmd')).toBe(true);
  });

  it('takes everything else for the agent: clients, interactive shells, package managers doing other work', () => {
    expect(launcher('/usr/bin/node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js')).toBe(false);
    expect(launcher('/Applications/Cursor.app/Contents/MacOS/Cursor')).toBe(false);
    expect(launcher('/Applications/Claude Code.app/Contents/MacOS/claude')).toBe(false);
    expect(launcher('bash')).toBe(false);
    expect(launcher('-zsh')).toBe(false);
    expect(launcher('npm', 'install')).toBe(false);
    expect(launcher('uv', 'pip', 'list')).toBe(false);
    expect(launcher('node', 'agent.js')).toBe(false);
    expect(launcher()).toBe(false);
  });
});

describe('findAgent', () => {
  const table = (rows: ProcInfo[]) => (pid: number) => rows.find((r) => r.pid === pid);
  const agent: ProcInfo = { pid: 100, ppid: 50, start: '777', argv: ['/usr/bin/claude'] };

  it('walks past npx, npm exec and sh -c to the first process that is not a launcher', () => {
    const read = table([
      agent,
      { pid: 200, ppid: 100, start: '800', argv: ['npm exec countersign connect fs'] },
      { pid: 300, ppid: 200, start: '801', argv: ['sh', '-c', 'countersign connect fs'] },
    ]);
    expect(findAgent(300, read)).toEqual({ pid: 100, start: '777' });
    expect(findAgent(100, read)).toEqual({ pid: 100, start: '777' });
  });

  it('knows no agent when the chain ends at init or cannot be read', () => {
    const orphan = table([{ pid: 300, ppid: 1, start: '1', argv: ['sh', '-c', 'x'] }]);
    expect(findAgent(300, orphan)).toBeUndefined();
    expect(findAgent(1, orphan)).toBeUndefined();
    expect(findAgent(999, orphan)).toBeUndefined();
    // A loop of launchers stops instead of spinning.
    const loop = table([
      { pid: 5, ppid: 6, start: '1', argv: ['env'] },
      { pid: 6, ppid: 5, start: '1', argv: ['env'] },
    ]);
    expect(findAgent(5, loop)).toBeUndefined();
  });

  it('tells a reused pid apart by its start time', () => {
    const before = findAgent(100, table([agent]))!;
    const reused = findAgent(100, table([{ ...agent, start: '99999' }]))!;
    expect(clientKey({ agent: before })).not.toBe(clientKey({ agent: reused }));
  });
});

describe('process tables', () => {
  it('reads ps -A -o pid=,ppid=,lstart=,args= (macOS)', () => {
    const rows = psTable(
      [
        '    1     0 Tue Dec  2 08:00:01 2025     /sbin/launchd',
        '  812     1 Tue Dec  2 09:10:11 2025     /Applications/Claude.app/Contents/MacOS/Claude',
        '  930   812 Tue Dec  2 09:12:00 2025     npm exec countersign connect fs',
        'garbage',
      ].join('\n'),
    );
    expect(rows.get(812)).toEqual({ pid: 812, ppid: 1, start: 'Tue Dec 2 09:10:11 2025', argv: ['/Applications/Claude.app/Contents/MacOS/Claude'] });
    expect(findAgent(930, (pid) => rows.get(pid))).toEqual({ pid: 812, start: 'Tue Dec 2 09:10:11 2025' });
    expect(rows.size).toBe(3);
  });

  it.runIf(process.platform === 'linux')('reads /proc, and finds this process past a real sh -c', () => {
    const self = readLinuxProc(process.pid)!;
    expect(self.ppid).toBe(process.ppid);
    expect(self.argv[0]).toBe(process.argv0);
    expect(self.start).toMatch(/^\d+$/);
    // A child behind `sh -c` (kept alive by a second command) finds this process as its agent.
    const script = `import('${new URL('../../electron/cli/agent-process.ts', import.meta.url).href}').then((m) => console.log(JSON.stringify(m.currentAgent())))`;
    const out = execFileSync('sh', ['-c', `"$0" --import tsx -e "$1"; exit $?`, process.execPath, script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ pid: process.pid, start: self.start });
  });
});
