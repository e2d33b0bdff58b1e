// The `countersign` command as a person uses it: servers, the audit log, files and their modes.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { BrokerStatus } from '../../shared/api.js';
import { connectClient, makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { CLI, EVERYTHING_SERVER, NODE } from '../helpers/paths.js';
import { grantCli } from '../helpers/cli-run.js';

const run = promisify(execFile);
async function cs(dataDir: string, ...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(NODE, [CLI, '--data-dir', dataDir, ...args]);
    return { stdout, stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe('countersign CLI', () => {
  it('adds, lists, trusts and removes servers in the mcpServers shape', async () => {
    const dir = makeDataDir();
    try {
      expect(
        (await cs(dir, 'servers', 'add', 'fs', '--env', 'A=1', '--env', 'B=x=y', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp')).code,
      ).toBe(0);
      expect((await cs(dir, 'servers', 'add', 'remote', '--url', 'https://mcp.example.com/mcp', '--header', 'X-Key=abc')).code).toBe(0);
      const dup = await cs(dir, 'servers', 'add', 'fs', '--', 'true');
      expect(dup.code).not.toBe(0);
      expect(dup.stderr).toMatch(/already/);
      const bad = await cs(dir, 'servers', 'add', 'bad', '--url', 'file:///etc/passwd');
      expect(bad.code).not.toBe(0);

      const list = JSON.parse((await cs(dir, 'servers', 'list', '--json')).stdout) as Array<{ name: string; trusted: boolean; config: unknown }>;
      // Values of env and headers may be secrets: the CLI shows their names, as the UI does.
      expect(list).toEqual([
        {
          name: 'fs',
          trusted: false,
          status: 'needs-consent',
          config: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { A: '••••', B: '••••' } },
        },
        { name: 'remote', trusted: false, status: 'idle', config: { url: 'https://mcp.example.com/mcp', headers: { 'X-Key': '••••' } } },
      ]);
      expect((await grantCli(dir, 'trust', 'fs')).code).toBe(0);
      expect((await cs(dir, 'servers', 'list')).stdout).toMatch(/^fs\ttrusted\tnpx -y/m);
      expect((await cs(dir, 'servers', 'remove', 'remote')).code).toBe(0);
      expect((await cs(dir, 'servers', 'remove', 'remote')).code).not.toBe(0);
      expect((await cs(dir, 'servers', 'list', '--json')).stdout).not.toContain('remote');
      const usage = await cs(dir, 'servers', 'frobnicate');
      expect(usage.code).toBe(64);
      expect(usage.stderr).toMatch(/unknown servers command/);
    } finally {
      removeDir(dir);
    }
  });

  it('keeps tokens private: the MCP token file and socket are 0600, the UI token is never on disk', async () => {
    const dir = makeDataDir();
    const broker = await startServe(dir);
    try {
      expect(statSync(join(dir, 'mcp-token')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'broker.sock')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'reports.sock')).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const f of readdirSync(dir)) {
        if (f.endsWith('.sock')) continue;
        expect(readFileSync(join(dir, f), 'utf8')).not.toContain(broker.apiToken);
      }
      expect(broker.stderr()).not.toContain(broker.apiToken);
      // The UI teaches the exact command, naming this non-default data dir.
      // An absolute command (node and the checkout's bin script), never a registry name.
      const status = await broker.api<BrokerStatus>('getStatus');
      expect(status.connectCommand).toBe(`${NODE} ${CLI} connect <server> --data-dir ${dir}`);
      expect(status.connectLaunch).toEqual({ command: NODE, args: [CLI, 'connect', '<server>', '--data-dir', dir] });
    } finally {
      await broker.stop();
      removeDir(dir);
    }
  });

  it('warns when told to bind beyond loopback', async () => {
    const dir = makeDataDir();
    const broker = await startServe(dir, ['--host', '0.0.0.0']);
    try {
      expect(broker.stderr()).toMatch(/WARNING: binding to 0\.0\.0\.0, not loopback/);
      // The UI shows status warnings: the same words are there.
      const status = await broker.api<{ warnings: string[] }>('getStatus');
      expect(status.warnings.some((w) => /binding to 0\.0\.0\.0, not loopback/.test(w))).toBe(true);
    } finally {
      await broker.stop();
      removeDir(dir);
    }
  });

  it('reads the audit log, verifies its hash chain, and finds tampering', async () => {
    const dir = makeDataDir();
    await cs(dir, 'servers', 'add', 'everything', '--', NODE, EVERYTHING_SERVER);
    await grantCli(dir, 'approve', 'everything');
    await grantCli(dir, 'trust', 'everything');
    const broker = await startServe(dir);
    try {
      const client = await connectClient(broker, 'everything', 'connect');
      try {
        for (const message of ['one', 'two', 'three']) await client.callTool({ name: 'echo', arguments: { message } });
      } finally {
        await client.close();
      }
    } finally {
      await broker.stop();
    }
    try {
      const human = await cs(dir, 'log');
      expect(human.stdout).toMatch(/everything\/echo {2}allow by policy {2}ok .*\{"message":"two"\}/);
      const json = (await cs(dir, 'log', '--json')).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { kind?: string; detail?: string; arguments: unknown });
      // The CLI's add, approval and trust took the broker's path: they are in the chain before the calls.
      expect(json.map((e) => e.kind ?? 'call')).toEqual(['server', 'launch', 'trust', 'call', 'call', 'call']);
      expect(json.filter((e) => !e.kind).map((e) => e.arguments)).toEqual([{ message: 'one' }, { message: 'two' }, { message: 'three' }]);
      const ok = await cs(dir, 'log', '--verify');
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/6 entries/);

      const file = join(dir, 'audit.jsonl');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"two"', '"TWO"'));
      const bad = await cs(dir, 'log', '--verify');
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/line 5/);
    } finally {
      removeDir(dir);
    }
  });

  it('follows the log as new calls are made', async () => {
    const dir = makeDataDir();
    await cs(dir, 'servers', 'add', 'everything', '--', NODE, EVERYTHING_SERVER);
    await grantCli(dir, 'approve', 'everything');
    await grantCli(dir, 'trust', 'everything');
    const broker = await startServe(dir);
    const { spawn } = await import('node:child_process');
    const follower = spawn(NODE, [CLI, 'log', '--follow', '--json', '--data-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      follower.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      await new Promise((r) => setTimeout(r, 500));
      const client = await connectClient(broker, 'everything', 'http');
      try {
        await client.callTool({ name: 'echo', arguments: { message: 'followed' } });
      } finally {
        await client.close();
      }
      const end = Date.now() + 10_000;
      while (!out.includes('followed') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('"message":"followed"');
    } finally {
      follower.kill();
      await broker.stop();
      removeDir(dir);
    }
  });

  it('prints usage and exits non-zero on unknown commands', async () => {
    const dir = makeDataDir();
    try {
      const r = await cs(dir, 'fly');
      expect(r.code).toBe(64);
      expect(r.stderr).toMatch(/unknown command 'fly'/);
      expect(r.stderr).toMatch(/countersign serve/);
    } finally {
      removeDir(dir);
    }
  });
});
