// Fail closed, as it happens: Countersign run where bubblewrap cannot make a sandbox (inside another
// sandbox that forbids user namespaces, so the real probe really fails). A server with limits does not
// start: the status says why and the fix, the refusal is in the log, nothing runs. The person's
// "run without its limits" (the CLI, bound to the launch hash) lets it start, unsandboxed and said so;
// taking it back stops it again. A server with no limits is not affected.
import { createServer, type Server } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, BrokerStatus, ServerView } from '../../shared/api.js';
import { makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** Countersign's own process in a sandbox with no further user namespaces: its bubblewrap probe fails. */
const NO_USERNS = [
  'bwrap',
  '--unshare-user',
  '--disable-userns',
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  '--bind',
  '/',
  '/',
  '--dev-bind',
  '/dev',
  '/dev',
  '--proc',
  '/proc',
  '--',
];

async function connect(broker: TestBroker, server: string): Promise<Client> {
  const client = new Client({ name: 'fail-closed-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/${server}`), { requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } } }),
  );
  return client;
}

describe.skipIf(process.platform !== 'linux')('a sandbox that cannot start fails closed', () => {
  let host: Server;
  let url = '';
  let hits = 0;

  beforeAll(async () => {
    host = createServer((_req, res) => {
      hits += 1;
      res.end('hello from the host');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(host.address() as { port: number }).port}/`;
  });

  afterAll(async () => {
    await new Promise((r) => host?.close(r));
  });

  it('refuses a limited server with the reason and the fix, audits it, and lets the person run it without its limits', { timeout: 90_000 }, async () => {
    const dataDir = makeDataDir();
    const cs = (...args: string[]) => runCli(dataDir, ...args);
    let broker: TestBroker | undefined;
    try {
      expect((await cs('servers', 'add', 'offline', '--no-network', '--', NODE, FIXTURE, 'tree')).code).toBe(0);
      expect((await cs('servers', 'add', 'plain', '--', NODE, FIXTURE, 'tree')).code).toBe(0);
      for (const name of ['offline', 'plain']) {
        const { launch } = JSON.parse((await cs('servers', 'show', name, '--json')).stdout) as ServerView;
        expect((await cs('servers', 'approve', name, '--yes', '--hash', launch.hash)).code).toBe(0);
      }
      broker = await startServe(dataDir, [], {}, { as: NO_USERNS });
      const status = await broker.api<BrokerStatus>('getStatus');
      expect(status.sandbox).toMatchObject({
        kind: 'none',
        reason: expect.stringMatching(/^bubblewrap cannot make a sandbox here \(bwrap: Creating new namespace failed: .*ENOSPC.*\)$/),
        fix: expect.stringContaining('sudo sysctl -w user.max_user_namespaces='),
      });

      // The limited server does not start; the client is told why, with the fix.
      await expect(connect(broker, 'offline')).rejects.toThrow(/no network cannot be enforced here .*Fix: allow user namespaces/);
      const refusals = await broker.logWhen({ server: 'offline' }, (e) => e.some((x) => x.decision === 'deny'));
      expect(refusals.find((e: AuditEntry) => e.kind === 'launch' && e.decision === 'deny')).toMatchObject({
        actor: 'countersign',
        detail: expect.stringMatching(/^not started: its limits \(no network\) cannot be enforced here/),
      });
      const shown = await cs('servers', 'limits', 'offline');
      expect(shown.stdout).toContain('It does NOT start here: its limits cannot be enforced (bubblewrap cannot make a sandbox here');
      expect(shown.stdout).toContain('  fix: allow user namespaces: sudo sysctl -w user.max_user_namespaces=');
      expect(shown.stdout).toContain('  or let it run without them: countersign servers limits offline --run-without-limits');

      // A server with no limits is unaffected (it runs as it is, as before).
      const plain = await connect(broker, 'plain');
      await plain.close();

      // The person lets it run without its limits, bound to the launch printed.
      const { launch } = JSON.parse((await cs('servers', 'show', 'offline', '--json')).stdout) as ServerView;
      const stale = await cs('servers', 'limits', 'offline', '--run-without-limits', '--yes', '--hash', '0'.repeat(64));
      expect(stale.code).not.toBe(0);
      const allowed = await cs('servers', 'limits', 'offline', '--run-without-limits', '--yes', '--hash', launch.hash);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain("'offline' may run without its limits where they cannot be enforced");
      const client = await connect(broker, 'offline');
      try {
        const before = hits;
        const fetching = client.callTool({ name: 'fetch_url', arguments: { url } });
        const pending = await broker.waitForPending((c) => c.tool === 'fetch_url');
        // Not enforced, so it removes no friction: the card says so.
        expect(pending.limits).toMatch(/^no network \(not enforced/);
        await broker.api('decide', pending.id, { kind: 'allow-once' });
        expect(textOf(await fetching)).toBe('status 200: hello from the host');
        expect(hits).toBe(before + 1);
        const view = (await broker.api<ServerView[]>('listServers')).find((s) => s.name === 'offline')!;
        expect(view.limits?.running?.enforcement).toMatchObject({ sandbox: 'none', network: 'not enforced', runsWithoutLimits: true });
        expect(view.limits?.unenforced).toMatchObject({ runsWithoutLimits: true });
      } finally {
        await client.close();
      }
      const log = (await cs('log', '--json')).stdout;
      expect(log).toContain('may run without its limits (no network) where they cannot be enforced');
      expect(log).toContain('started without its limits (no network), as you allowed');

      // Taken back: refused again.
      expect((await cs('servers', 'limits', 'offline', '--require-limits')).code).toBe(0);
      await expect(connect(broker, 'offline')).rejects.toThrow(/cannot be enforced here/);
    } finally {
      await broker?.stop();
      removeDir(dataDir);
    }
  });
});
