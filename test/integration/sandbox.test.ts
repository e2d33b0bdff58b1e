// The sandbox, for real: bubblewrap, real MCP servers from node_modules, real sockets and files. The
// limits go straight to the spawn path here; storing them with the server's consent comes later.
// On Linux these tests fail (never skip) when bubblewrap cannot run: CI installs it.
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_LIMITS, summarizeEnforced, type LimitsProfile, type SandboxSupport } from '../../shared/limits.js';
import { detectSandbox } from '../../electron/broker/upstream/sandbox/detect.js';
import { StdioUpstream } from '../../electron/broker/upstream/stdio-upstream.js';
import { makeDataDir, removeDir } from '../helpers/broker-harness.js';
import { Broker } from '../../electron/broker/core/broker.js';
import { FILESYSTEM_SERVER, FIXTURE, NODE } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

interface Running {
  client: Client;
  upstream: StdioUpstream;
}

async function run(args: string[], limits: LimitsProfile, support: SandboxSupport, env?: Record<string, string>, allowUnenforced?: boolean): Promise<Running> {
  const upstream = new StdioUpstream({ command: NODE, args, env }, { sandbox: { limits, support, allowUnenforced } });
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await client.connect(upstream as unknown as Transport);
  return { client, upstream };
}

async function call(r: Running, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await r.client.callTool({ name, arguments: args })) as ToolResult;
}

describe.skipIf(process.platform !== 'linux')('sandbox (bubblewrap)', () => {
  let support: SandboxSupport;
  let scratch: string;
  let host: Server;
  let port = 0;
  let hits = 0;

  beforeAll(async () => {
    support = await detectSandbox();
    // Not a skip: a Linux machine without a working bubblewrap fails here, with the probe's reason.
    expect(support, JSON.stringify(support)).toMatchObject({ kind: 'bubblewrap', network: true });
    scratch = mkdtempSync(join(tmpdir(), 'cs-sandbox-'));
    host = createServer((_req, res) => {
      hits += 1;
      res.end('hello from the host');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    port = (host.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((r) => host?.close(r));
    removeDir(scratch);
  });

  it("mounts a read-only root read-only: write_file fails at the OS, the file is unchanged, and the client sees the server's own error", async () => {
    const dir = mkdtempSync(join(scratch, 'ro-'));
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'original');
    const limits: LimitsProfile = { network: 'none', filesystem: { read: [dir], write: [] }, passEnv: [] };
    const r = await run([FILESYSTEM_SERVER, dir], limits, support);
    try {
      expect(r.upstream.enforcement).toMatchObject({ sandbox: 'bubblewrap', filesystem: 'enforced', network: 'enforced', processes: 'enforced' });
      expect(textOf(await call(r, 'read_text_file', { path: file }))).toBe('original');
      const write = await call(r, 'write_file', { path: file, content: 'changed' });
      expect(write.isError).toBe(true);
      expect(textOf(write)).toMatch(/EROFS|read-only file system/i);
      expect(readFileSync(file, 'utf8')).toBe('original');
      expect(readdirSync(dir)).toEqual(['notes.txt']);
    } finally {
      await r.client.close();
    }
  });

  it('lets the same server write inside a writable root (the limit is not just a broken server)', async () => {
    const dir = mkdtempSync(join(scratch, 'rw-'));
    const limits: LimitsProfile = { network: 'none', filesystem: { read: [], write: [dir] }, passEnv: [] };
    const r = await run([FILESYSTEM_SERVER, dir], limits, support);
    try {
      expect((await call(r, 'write_file', { path: join(dir, 'new.txt'), content: 'written' })).isError).toBeFalsy();
      expect(readFileSync(join(dir, 'new.txt'), 'utf8')).toBe('written');
    } finally {
      await r.client.close();
    }
  });

  it('hides the rest of the home folder: a canary beside the allowed folder cannot be read or listed', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    writeFileSync(join(home, 'canary.txt'), 'the canary');
    const project = join(home, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'readme.md'), 'project file');
    const limits: LimitsProfile = { network: 'none', filesystem: { read: [project], write: [] }, passEnv: [] };
    // The server itself is told it may use the whole home: only the sandbox stands in its way.
    const r = await run([FILESYSTEM_SERVER, home], limits, support, { HOME: home });
    try {
      expect(textOf(await call(r, 'read_text_file', { path: join(project, 'readme.md') }))).toBe('project file');
      const canary = await call(r, 'read_text_file', { path: join(home, 'canary.txt') });
      expect(canary.isError).toBe(true);
      expect(textOf(canary)).not.toContain('the canary');
      expect(textOf(canary)).toMatch(/ENOENT|no such file/i);
      const listing = textOf(await call(r, 'list_directory', { path: home }));
      expect(listing).toContain('project');
      expect(listing).not.toContain('canary');
    } finally {
      await r.client.close();
    }
  });

  it('cuts the network: a server under "no network" cannot reach a port the test opened on 127.0.0.1', async () => {
    const url = `http://127.0.0.1:${port}/`;
    const open = await run([FIXTURE, 'tree'], NO_LIMITS, support);
    try {
      // The control: the same server, with the network, reaches it.
      expect(textOf(await call(open, 'fetch_url', { url }))).toBe('status 200: hello from the host');
    } finally {
      await open.client.close();
    }
    const before = hits;
    const closed = await run([FIXTURE, 'tree'], { ...NO_LIMITS, network: 'none' }, support);
    try {
      expect(closed.upstream.enforcement).toMatchObject({ network: 'enforced', filesystem: 'no limit' });
      const result = await call(closed, 'fetch_url', { url });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^fetch failed: (ECONNREFUSED|ENETUNREACH)/);
      expect(hits).toBe(before);
    } finally {
      await closed.client.close();
    }
  });

  it('fails closed without bubblewrap: the limited server does not start, with the reason and the fix; with consent it runs and says so', async () => {
    const none = await detectSandbox({ bwrapPaths: ['/nonexistent/bwrap'] });
    expect(none).toMatchObject({
      kind: 'none',
      reason: 'bubblewrap is not installed (looked for /nonexistent/bwrap)',
      fix: expect.stringContaining('apt-get install bubblewrap'),
    });
    const limits: LimitsProfile = { ...NO_LIMITS, network: 'none' };
    const before = hits;
    const refused = new StdioUpstream({ command: NODE, args: [FIXTURE, 'tree'] }, { sandbox: { limits, support: none } });
    await expect(refused.start()).rejects.toThrow(/no network cannot be enforced here \(bubblewrap is not installed .*\)\. Fix: install bubblewrap/);
    expect(refused.exit?.startError).toContain('cannot be enforced');
    expect(refused.pid).toBeUndefined();
    const r = await run([FIXTURE, 'tree'], limits, none, undefined, true);
    try {
      const enforcement = r.upstream.enforcement!;
      expect(enforcement).toMatchObject({ sandbox: 'none', network: 'not enforced', processes: 'not enforced', runsWithoutLimits: true });
      expect(summarizeEnforced(limits, enforcement)).toBe('no network (not enforced: network: bubblewrap is not installed (looked for /nonexistent/bwrap))');
      // And indeed it is not: the unsandboxed server reaches the host.
      expect(textOf(await call(r, 'fetch_url', { url: `http://127.0.0.1:${port}/` }))).toBe('status 200: hello from the host');
      expect(hits).toBe(before + 1);
    } finally {
      await r.client.close();
    }
  });

  it("probes with the servers' own flags: a bubblewrap without --disable-userns (before 0.8) still sandboxes, and says what it lacks", async () => {
    // The real bubblewrap behind a wrapper that, like 0.7 and older, does not know the flag.
    const dir = mkdtempSync(join(scratch, 'old-bwrap-'));
    const old = join(dir, 'bwrap');
    writeFileSync(
      old,
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = --disable-userns ] && { echo 'bwrap: Unknown option --disable-userns' >&2; exit 1; }; done\nexec ${support.kind === 'bubblewrap' ? support.path : 'false'} "$@"\n`,
      { mode: 0o755 },
    );
    const found = await detectSandbox({ bwrapPaths: [old] });
    expect(found).toMatchObject({
      kind: 'bubblewrap',
      path: old,
      network: true,
      nestedUserns: { open: expect.stringContaining('older than 0.8') },
      fix: 'upgrade bubblewrap to 0.8 or later',
    });
    const r = await run([FIXTURE, 'tree'], { ...NO_LIMITS, network: 'none' }, found);
    try {
      expect(r.upstream.enforcement).toMatchObject({ sandbox: 'bubblewrap', network: 'enforced', caveats: [expect.stringContaining('older than 0.8')] });
      expect(r.upstream.limitsInForce).toBeDefined();
    } finally {
      await r.client.close();
    }
  });

  it("puts what the probe found in the broker's status: the real sandbox here, the reason where there is none", async () => {
    for (const [sandbox, expected] of [
      [undefined, { kind: 'bubblewrap', network: true, nestedUserns: 'blocked' }],
      [
        detectSandbox({ bwrapPaths: ['/nonexistent/bwrap'] }),
        {
          kind: 'none',
          reason: 'bubblewrap is not installed (looked for /nonexistent/bwrap)',
          fix: expect.stringContaining('sudo apt-get install bubblewrap'),
        },
      ],
    ] as const) {
      const dataDir = makeDataDir();
      const broker = new Broker({ dataDir, sandbox });
      try {
        expect((await broker.apiFor('cli').getStatus()).sandbox).toMatchObject(expected);
      } finally {
        await broker.close();
        removeDir(dataDir);
      }
    }
  });

  it('refuses to start a limited server whose paths do not exist, with the reason', async () => {
    const limits: LimitsProfile = { ...NO_LIMITS, filesystem: { read: [join(scratch, 'missing')], write: [] } };
    const upstream = new StdioUpstream({ command: NODE, args: [FIXTURE, 'tree'] }, { sandbox: { limits, support } });
    await expect(upstream.start()).rejects.toThrow(`the path ${join(scratch, 'missing')} in its limits does not exist`);
    expect(upstream.exit?.startError).toContain('does not exist');
  });
});
