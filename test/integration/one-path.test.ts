// One way to change state, through the real surfaces: the CLI talks to a running `countersign serve`
// over its local socket (the broker sees the change at once, in its log, as the CLI's), or opens the
// same core in-process when none runs; the browser's HTTP API takes the same path as 'browser'.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, ServerView } from '../../shared/api.js';
import { makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { viewOf } from '../helpers/consent.js';
import { CLI, MEMORY_SERVER, NODE } from '../helpers/paths.js';
import { grantCli, runCli } from '../helpers/cli-run.js';

const cs = runCli;

const logOf = async (dataDir: string) =>
  (await cs(dataDir, 'log', '--json')).stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry);

describe('the CLI and a running broker', () => {
  it('a CLI change reaches the running broker over its socket at once, logged as the CLI', async () => {
    const dir = makeDataDir();
    const broker = await startServe(dir);
    try {
      expect((await cs(dir, 'servers', 'add', 'mem', '--', NODE, MEMORY_SERVER)).code).toBe(0);
      // No restart, no file re-read: the running broker made the change and logged it.
      expect((await viewOf(broker.api, 'mem')).status).toBe('needs-consent');
      const shown = await grantCli(dir, 'approve', 'mem');
      expect(shown.code).toBe(0);
      const hash = (await viewOf(broker.api, 'mem')).launch.hash;
      expect(shown.stdout).toContain(`[1] ${MEMORY_SERVER}`);
      expect(shown.stdout).toContain(`launch hash ${hash}`);
      expect((await viewOf(broker.api, 'mem')).launch.approved).toBe(true);
      expect((await grantCli(dir, 'trust', 'mem')).code).toBe(0);
      await broker.api('setPaused', true);
      const log = await broker.api<AuditEntry[]>('queryLog', {});
      expect(log.map((e) => [e.kind, e.actor, e.detail])).toEqual([
        ['server', 'cli', 'server added'],
        ['launch', 'cli', 'command line approved'],
        ['trust', 'cli', 'server trusted'],
        ['settings', 'browser', 'paused: every call is denied'],
      ]);
    } finally {
      await broker.stop();
      removeDir(dir);
    }
  });

  it('refuses a CLI approval bound to a command that changed since it was shown, over the socket and in-process', async () => {
    const dir = makeDataDir();
    try {
      await cs(dir, 'servers', 'add', 'mem', '--', NODE, MEMORY_SERVER);
      const shown = /launch hash ([0-9a-f]{64})/.exec((await cs(dir, 'servers', 'show', 'mem')).stdout)![1]!;
      const file = join(dir, 'settings.json');
      const settings = JSON.parse(readFileSync(file, 'utf8')) as { servers: Record<string, { args: string[] }> };
      settings.servers.mem!.args.push('--extra');
      writeFileSync(file, JSON.stringify(settings));
      // No broker runs: the CLI opens the same core in-process.
      const inProcess = await cs(dir, 'servers', 'approve', 'mem', '--yes', '--hash', shown);
      expect(inProcess.code).toBe(1);
      expect(inProcess.stderr).toMatch(/command line changed after it was shown to you, so nothing was approved/);
      expect(inProcess.stderr).not.toMatch(/\n\s+at /); // a sentence, not a stack trace
      const broker = await startServe(dir);
      try {
        const viaSocket = await cs(dir, 'servers', 'approve', 'mem', '--yes', '--hash', shown);
        expect(viaSocket.code).toBe(1);
        expect(viaSocket.stderr).toMatch(/changed after it was shown to you/);
        // The browser's click on the old command is refused the same way.
        await expect(broker.api('approveLaunch', 'mem', shown)).rejects.toThrow(/changed after it was shown to you/);
        await expect(broker.api('approveLaunch', 'mem')).rejects.toThrow(/invalid arguments for approveLaunch.*launch\.hash/);
        const view = await viewOf(broker.api, 'mem');
        expect(view.launch.approved).toBe(false);
        expect(view.launch.commandLine).toEqual([NODE, MEMORY_SERVER, '--extra']);
      } finally {
        await broker.stop();
      }
      expect((await logOf(dir)).map((e) => e.kind)).toEqual(['server']);
    } finally {
      removeDir(dir);
    }
  });

  it('reviews, pins and unpins from the CLI, bound to what it printed', async () => {
    const dir = makeDataDir();
    const broker = await startServe(dir);
    try {
      await cs(dir, 'servers', 'add', 'mem', '--', NODE, MEMORY_SERVER);
      await grantCli(dir, 'approve', 'mem');
      const pinned = await grantCli(dir, 'pin', 'mem');
      expect(pinned.code).toBe(0);
      expect(pinned.stdout).toMatch(/Pinned to version \S+; definitions [0-9a-f]{64}/);
      const view: ServerView = await viewOf(broker.api, 'mem');
      expect(view.pin?.definitionsHash).toBe(view.listingHash);
      expect((await cs(dir, 'servers', 'review', 'mem')).stdout).toMatch(/Nothing of 'mem' waits for review/);
      expect((await cs(dir, 'servers', 'unpin', 'mem')).code).toBe(0);
      expect((await viewOf(broker.api, 'mem')).pin).toBeUndefined();
      const log = await broker.api<AuditEntry[]>('queryLog', { server: 'mem' });
      expect(log.filter((e) => e.kind === 'pin').map((e) => [e.actor, e.detail])).toEqual([
        ['cli', 'pinned'],
        ['cli', 'unpinned'],
      ]);
    } finally {
      await broker.stop();
      removeDir(dir);
    }
  });
});
