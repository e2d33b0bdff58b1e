// Launch consent cannot be forged through the policy path (issue 21, point 5). An agent that can write the
// data dir writes a policy file there, points settings.json's policyPath at it by hand and adds a server
// the policy "pre-approves": the server must not start without the person, and nothing is sealed. The
// path is the person's sealed choice: a hand-written one is ignored until confirmed, a sealed one survives
// hand edits, and a user policy never pre-approves even once confirmed. Real server-filesystem, the real
// CLI and a running broker.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, BrokerStatus, ServerView, UnsealedGrant } from '../../shared/api.js';
import { pollUntil } from '../helpers/patience.js';
import { connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { viewOf } from '../helpers/consent.js';
import { FILESYSTEM_SERVER, MEMORY_SERVER, NODE } from '../helpers/paths.js';

const cs = runCli;

/** Processes whose command line names `marker` (a folder only this test's server is given). */
function processesNaming(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker) ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

/** What the agent does with its filesystem tool: edits settings.json directly (whole, as write_file does). */
function editSettings(dataDir: string, change: (data: { servers: Record<string, unknown>; settings: Record<string, unknown> }) => void): void {
  const file = join(dataDir, 'settings.json');
  const data = JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof change>[0];
  change(data);
  writeFileSync(`${file}.agent`, JSON.stringify(data), { mode: 0o600 });
  renameSync(`${file}.agent`, file);
}

const until = pollUntil;

const startError = (broker: TestBroker, name: string) =>
  connectClient(broker, name, 'connect').then(
    async (c) => {
      await c.close();
      return undefined;
    },
    (e: Error) => e.message,
  );

describe('launch consent forged through the policy path', () => {
  it('a policy the agent wrote and pointed settings.json at by hand starts nothing and seals nothing', { timeout: 120_000 }, async () => {
    const dataDir = makeDataDir();
    const project = join(dataDir, '..', `${dataDir.split('/').pop()}-project`);
    mkdirSync(project);
    const broker = await startServe(dataDir);
    try {
      // The agent's writes: a policy in the data dir, settings.json pointing at it, a server it "pre-approves".
      const policy = join(dataDir, 'team-policy.json');
      writeFileSync(policy, JSON.stringify({ version: 1, servers: { evil: { command: [NODE, FILESYSTEM_SERVER, project] } } }));
      editSettings(dataDir, (d) => {
        d.settings.policyPath = policy;
        d.servers.evil = { command: NODE, args: [FILESYSTEM_SERVER, project] };
      });
      await until(
        () => viewOf(broker.api, 'evil').catch(() => undefined),
        (v) => v !== undefined,
        'the hand-added server',
      );

      expect(await startError(broker, 'evil')).toMatch(/has not started 'evil'.*waits for your approval/s);
      // Pinning starts a server to learn it: refused the same way, from the real CLI.
      const hash = (await viewOf(broker.api, 'evil')).launch.hash;
      const pinned = await cs(dataDir, 'servers', 'pin', 'evil', '--yes', '--hash', hash);
      expect(pinned.code).toBe(1);
      expect(pinned.stderr).toMatch(/has not started 'evil'/);
      expect(processesNaming(project)).toEqual([]);

      const view = await viewOf(broker.api, 'evil');
      expect(view.launch).toMatchObject({ approved: false });
      expect(view.status).toBe('needs-consent');
      const log = await broker.api<AuditEntry[]>('queryLog', {});
      // The refusal is logged (every launch that reaches Countersign is); nothing approved one.
      expect(log.filter((e) => e.kind === 'launch').map((e) => e.decision)).toEqual(['deny']);
      const sealedFile = join(dataDir, 'grants.sealed.json');
      const sealed = (existsSync(sealedFile) ? JSON.parse(readFileSync(sealedFile, 'utf8')) : {}) as { grants?: { launch?: object; policy?: string } };
      expect(sealed.grants?.launch ?? {}).toEqual({});
      expect(sealed.grants?.policy).toBeUndefined();

      // The person is told, with the way to confirm it; settings report the sealed choice (none), not the file's.
      const status = await broker.api<BrokerStatus>('getStatus');
      expect(status.policy).toEqual({ mayPreapprove: false, unconfirmed: policy });
      expect(status.warnings.join('\n')).toContain(
        `settings.json names the team policy file ${policy}, but it was not set in Countersign (a hand edit), so it is ignored. Confirm it in Countersign (Servers → Not confirmed) or run: countersign policy confirm`,
      );
      expect((await broker.api<{ policyPath?: string }>('getSettings')).policyPath).toBeUndefined();
      const [grant] = (await broker.api<UnsealedGrant[]>('listUnsealed')).filter((g) => g.kind === 'policy');
      expect(grant).toMatchObject({ kind: 'policy', server: '*', path: policy });
      const shown = await cs(dataDir, 'policy');
      expect(shown.stdout).toContain('No team policy file.');
      expect(shown.stdout).toContain(`Not confirmed: settings.json names ${policy}`);

      // Confirming from a shell with no terminal needs --yes and the hash printed.
      for (const extra of [[], ['--yes'], ['--yes', '--hash', '0'.repeat(64)]]) {
        expect((await cs(dataDir, 'policy', 'confirm', ...extra)).code, extra.join(' ')).toBe(1);
      }
      expect((await broker.api<BrokerStatus>('getStatus')).policy?.path).toBeUndefined();
      const confirmed = await cs(dataDir, 'policy', 'confirm', '--yes', '--hash', grant!.hash);
      expect(confirmed.code, confirmed.stderr).toBe(0);
      expect((await broker.api<BrokerStatus>('getStatus')).policy).toEqual({ path: policy, from: 'person', mayPreapprove: false });
      // Confirmed, a user policy still pre-approves nothing: the person approves the launch itself.
      expect(await startError(broker, 'evil')).toMatch(/has not started 'evil'/);
      expect(processesNaming(project)).toEqual([]);
      await broker.api('approveLaunch', 'evil', hash);
      const client = await connectClient(broker, 'evil', 'connect');
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('read_text_file');
      } finally {
        await client.close();
      }
      const launches = (await broker.api<AuditEntry[]>('queryLog', { server: 'evil' })).filter((e) => e.kind === 'launch' && e.decision !== 'deny');
      expect(launches.map((e) => [e.actor, e.detail])).toEqual([['browser', 'command line approved']]);
      const settingsLog = (await broker.api<AuditEntry[]>('queryLog', {})).filter((e) => e.kind === 'settings');
      expect(settingsLog.map((e) => [e.actor, e.detail])).toEqual([['cli', `team policy file set to ${policy}`]]);
    } finally {
      await broker.stop();
      removeDir(dataDir);
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('COUNTERSIGN_POLICY pre-approves nothing either: a matching command still waits for the person', async () => {
    const dataDir = makeDataDir();
    const policy = join(dataDir, '..', `${dataDir.split('/').pop()}-policy.json`);
    writeFileSync(policy, JSON.stringify({ version: 1, servers: { mem: { command: [NODE, MEMORY_SERVER] } } }));
    const broker = await startServe(dataDir, [], { COUNTERSIGN_POLICY: policy });
    try {
      await broker.api('addServer', 'mem', { command: NODE, args: [MEMORY_SERVER] });
      expect(await startError(broker, 'mem')).toMatch(/has not started 'mem'/);
      expect((await viewOf(broker.api, 'mem')).launch.approved).toBe(false);
      expect((await broker.api<BrokerStatus>('getStatus')).policy).toEqual({ path: policy, from: 'environment', mayPreapprove: false });
    } finally {
      await broker.stop();
      removeDir(dataDir);
      rmSync(policy, { force: true });
    }
  });
});

describe('the policy path as the person set it', () => {
  it(
    'survives hand edits of settings.json, is removed only through Countersign (audited), and applies while the seal is gone',
    { timeout: 120_000 },
    async () => {
      const dataDir = makeDataDir();
      const team = join(dataDir, '..', `${dataDir.split('/').pop()}-team.json`);
      const empty = join(dataDir, 'empty-policy.json');
      writeFileSync(team, JSON.stringify({ version: 1, block: ['mem'] }));
      writeFileSync(empty, JSON.stringify({ version: 1 }));
      const broker = await startServe(dataDir);
      try {
        await broker.api('addServer', 'mem', { command: NODE, args: [MEMORY_SERVER] });
        await broker.api('approveLaunch', 'mem', (await viewOf(broker.api, 'mem')).launch.hash);
        // Bad input loses nothing: a relative path, or a file that is not a policy.
        await expect(broker.api('updateSettings', { policyPath: 'team.json' })).rejects.toThrow(/must be an absolute path/);
        await expect(broker.api('updateSettings', { policyPath: join(dataDir, 'settings.json') })).rejects.toThrow(/is not a team policy Countersign can read/);
        // Set from a shell with no terminal: it prints the change and its hash, and needs both.
        const setShown = await cs(dataDir, 'policy', 'set', team);
        expect(setShown.code).toBe(1);
        expect(setShown.stdout).toContain(`Team policy file now: none\nThen:                 ${team}`);
        const setHash = /change hash ([0-9a-f]{64})/.exec(setShown.stdout)![1]!;
        expect((await cs(dataDir, 'policy', 'set', team, '--yes')).code).toBe(1);
        expect((await broker.api<BrokerStatus>('getStatus')).policy?.path).toBeUndefined();
        const set = await cs(dataDir, 'policy', 'set', team, '--yes', '--hash', setHash);
        expect(set.code, set.stderr).toBe(0);
        expect((await cs(dataDir, 'policy')).stdout).toContain(`Team policy file: ${team} (set by you in Countersign)`);
        const blocked = (v: ServerView) => v.status === 'blocked';
        expect((await viewOf(broker.api, 'mem')).blockedBy).toMatch(/blocks 'mem'/);

        // The agent swaps the path for its own empty policy, then deletes it: the team's block holds.
        editSettings(dataDir, (d) => void (d.settings.policyPath = empty));
        await until(
          () => broker.api<BrokerStatus>('getStatus'),
          (s) => s.policy?.unconfirmed === empty,
          'the hand edit',
        );
        expect(blocked(await viewOf(broker.api, 'mem'))).toBe(true);
        editSettings(dataDir, (d) => void delete d.settings.policyPath);
        const status = await until(
          () => broker.api<BrokerStatus>('getStatus'),
          (s) => s.policy?.unconfirmed === undefined,
          'the hand edit',
        );
        expect(status.policy).toEqual({ path: team, from: 'person', mayPreapprove: false });
        expect(status.warnings.join('\n')).toContain(
          `settings.json no longer names the team policy file ${team} you set in Countersign (a hand edit). It stays in effect`,
        );
        expect(await startError(broker, 'mem')).toMatch(/will not start 'mem': the team policy .* blocks 'mem'/);

        // Removing it is consent: without a terminal the CLI needs --yes and the hash it printed.
        const shown = await cs(dataDir, 'policy', 'unset');
        expect(shown.code).toBe(1);
        const hash = /change hash ([0-9a-f]{64})/.exec(shown.stdout)![1]!;
        expect((await cs(dataDir, 'policy', 'unset', '--yes')).code).toBe(1);
        expect((await cs(dataDir, 'policy', 'unset', '--yes', '--hash', '0'.repeat(64))).stderr).toMatch(/changed after it was shown to you/);
        expect((await broker.api<BrokerStatus>('getStatus')).policy?.path).toBe(team);
        const unset = await cs(dataDir, 'policy', 'unset', '--yes', '--hash', hash);
        expect(unset.code, unset.stderr).toBe(0);
        expect((await broker.api<BrokerStatus>('getStatus')).policy).toEqual({ mayPreapprove: false });
        expect((await viewOf(broker.api, 'mem')).status).not.toBe('blocked');

        // Set again through the API, then the agent deletes the sealed records: the path settings.json names
        // still holds the server back (a user policy only adds friction), and says so.
        await broker.api('updateSettings', { policyPath: team });
        rmSync(join(dataDir, 'grants.sealed.json'));
        const lost = await until(
          () => broker.api<BrokerStatus>('getStatus'),
          (s) => s.policy?.from === 'unconfirmed',
          'the lost seal',
        );
        expect(lost.policy?.path).toBe(team);
        expect(blocked(await viewOf(broker.api, 'mem'))).toBe(true);

        // And removed through the API (null), audited as a removal.
        await broker.api('updateSettings', { policyPath: null });
        const log = (await broker.api<AuditEntry[]>('queryLog', {})).filter((e) => e.kind === 'settings');
        expect(log.map((e) => [e.actor, e.detail, e.decision])).toEqual([
          ['cli', `team policy file set to ${team}`, 'allow'],
          ['cli', `team policy file removed (was ${team})`, 'deny'],
          ['browser', `team policy file set to ${team}`, 'allow'],
          ['browser', 'team policy file removed', 'deny'],
        ]);
      } finally {
        await broker.stop();
        removeDir(dataDir);
        rmSync(team, { force: true });
      }
    },
  );
});
