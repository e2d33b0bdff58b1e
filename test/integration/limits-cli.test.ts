// `countersign servers add … --no-network --read-only DIR` and `servers limits <name>` as a person uses
// them: the real CLI (dist), a real data dir, real bubblewrap behind the enforcement it reports.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServerView } from '../../shared/api.js';
import { Broker } from '../../electron/broker/core/broker.js';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { limitsText } from '../../electron/cli/server-limits.js';
import { makeDataDir, removeDir } from '../helpers/broker-harness.js';
import { CLI, FILESYSTEM_SERVER, NODE } from '../helpers/paths.js';
import { grantCli, runCli } from '../helpers/cli-run.js';

const cs = runCli;

describe.skipIf(process.platform !== 'linux')('countersign servers … limits', () => {
  it('adds a server with limits, shows what enforces them, loosens with a question and tightens at once', { timeout: 60_000 }, async () => {
    const dir = makeDataDir();
    const project = mkdtempSync(join(tmpdir(), 'cs-cli-limits-'));
    try {
      const added = await cs(dir, 'servers', 'add', 'files', '--no-network', '--read-only', project, '--', NODE, FILESYSTEM_SERVER, project);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toContain(`Its limits: no network · read-only ${project}`);
      const list = JSON.parse((await cs(dir, 'servers', 'list', '--json')).stdout) as Array<{ config: { limits?: unknown }; limits?: string }>;
      expect(list[0]!.config.limits).toEqual({ network: 'none', filesystem: { read: [project], write: [] }, passEnv: [] });
      expect(list[0]!.limits).toBe(`no network · read-only ${project} (enforced)`);

      const shown = await cs(dir, 'servers', 'limits', 'files');
      expect(shown.stdout).toContain(`Limits of 'files': no network · read-only ${project} (enforced)`);
      expect(shown.stdout).toMatch(/Enforced here by bubblewrap:\n {2}network +enforced\n {2}files +enforced\n {2}processes +enforced \(own PID namespace\)/);
      // The filesystem server's directory is offered writable; it is already covered read-only, so nothing looser is pushed.
      expect(shown.stdout).not.toContain('Offered');
      expect((await cs(dir, 'servers', 'show', 'files')).stdout).toContain(`limits: no network · read-only ${project}`);
      expect((await grantCli(dir, 'approve', 'files')).code).toBe(0);

      // Looser: before and after, a question; no terminal here, so it names the launch hash printed.
      const hash = (JSON.parse((await cs(dir, 'servers', 'show', 'files', '--json')).stdout) as ServerView).launch.hash;
      const loosened = await cs(dir, 'servers', 'limits', 'files', '--write', project, '--yes', '--hash', hash);
      expect(loosened.code, loosened.stderr).toBe(0);
      expect(loosened.stdout).toContain(`Now:  no network · read-only ${project}\nThen: no network · writes ${project}`);
      expect(loosened.stdout).toMatch(/launch hash [0-9a-f]{64} \(approved\)/);
      let view = JSON.parse((await cs(dir, 'servers', 'show', 'files', '--json')).stdout) as ServerView;
      expect(view.launch).toMatchObject({ approved: true, limits: { filesystem: { read: [], write: [project] } } });

      // A stale hash: refused, nothing changed.
      const stale = await cs(dir, 'servers', 'limits', 'files', '--network', '--hash', '0'.repeat(64), '--yes');
      expect(stale.code).not.toBe(0);
      expect(stale.stderr).toMatch(/changed after it was shown/);

      // Tighter: at once, no question, the approval stays.
      const tightened = await cs(dir, 'servers', 'limits', 'files', '--no-files');
      expect(tightened.stdout).toContain("Limits of 'files' are now: no network · no files (applied at once");
      view = JSON.parse((await cs(dir, 'servers', 'show', 'files', '--json')).stdout) as ServerView;
      expect(view.launch).toMatchObject({ approved: true, limits: { network: 'none', filesystem: { read: [], write: [] } } });
      const log = (await cs(dir, 'log', '--json')).stdout;
      expect(log).toContain('limits loosened, with consent');
      expect(log).toContain('limits tightened, applied at once');

      const bad = await cs(dir, 'servers', 'limits', 'files', '--network', '--no-network');
      expect(bad.code).toBe(64);
      expect((await cs(dir, 'servers', 'add', 'r', '--url', 'https://example.com/mcp', '--no-network')).stderr).toMatch(/not to a --url server/);
    } finally {
      removeDir(dir);
      removeDir(project);
    }
  });

  it('says plainly when nothing enforces the limits here', async () => {
    const dir = makeDataDir();
    const broker = new Broker({ dataDir: dir, sandbox: detectSandbox({ bwrapPaths: ['/nonexistent/bwrap'] }) });
    try {
      const api = broker.apiFor('cli');
      await api.addServer('offline', { command: NODE, args: ['-e', ''], limits: { network: 'none', filesystem: 'host', passEnv: [] } });
      const text = limitsText((await api.listServers())[0]!);
      expect(text).toContain("Limits of 'offline': no network (not enforced: network: bubblewrap is not installed (looked for /nonexistent/bwrap))");
      expect(text).toMatch(/Enforced here by nothing: NOT SANDBOXED \(bubblewrap is not installed.*\):\n {2}network +not enforced/);
    } finally {
      await broker.close();
      removeDir(dir);
    }
  });
});
