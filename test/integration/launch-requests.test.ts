// A launch refused for want of the person's consent, through the real CLI and broker: the client is told
// what to do, the log has it, and it waits once in the queue ("needs your approval to start") however
// often clients retry, until approved there with the command that was shown.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, LaunchRequest, ServerView } from '../../shared/api.js';
import { configure, connectClient, makeDataDir, removeDir, startServe } from '../helpers/broker-harness.js';
import { FIXTURE, NODE } from '../helpers/paths.js';
import { initRequest, RawConnect, rawPost } from '../helpers/raw-client.js';

describe('a launch refused for want of consent', () => {
  it('is logged, waits once in the queue however often clients retry, and starts once approved there', async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { counter: { command: NODE, args: [FIXTURE, 'counter'] } }, [], { consent: false });
    const broker = await startServe(dataDir);
    try {
      // A client retrying its launch: three `connect` processes, and one HTTP session.
      for (let i = 0; i < 3; i++) {
        const raw = new RawConnect(dataDir, 'counter', ['--client', 'claude-test']);
        raw.write(`${initRequest(`init-${i}`)}\n`);
        const answer = await raw.next((m) => m.id === `init-${i}`);
        const [code] = (await once(raw.child, 'exit')) as [number];
        expect(code).toBe(1);
        for (const said of [(answer.error as { message: string }).message, raw.stderr]) {
          expect(said).toContain("Countersign has not started 'counter': its command line is new or changed");
          expect(said).toContain('needs your approval to start');
          expect(said).toContain('Then restart this server in your client.');
        }
      }
      const http = await rawPost(broker, 'counter', initRequest('init-http'));
      expect(http.status).toBe(404);

      // One request, every attempt counted, the command as the Servers screen shows it.
      const shown = (await broker.api<ServerView[]>('listServers')).find((s) => s.name === 'counter')!;
      const requests = await broker.api<LaunchRequest[]>('listLaunchRequests');
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ server: 'counter', attempts: 4, clients: ['claude-test'], reason: 'its command line is new or changed' });
      expect(requests[0]!.launch).toMatchObject({ commandLine: shown.launch.commandLine, hash: shown.launch.hash, approved: false });

      // The first refusal is in the log at once; the retries are counted, not written one by one.
      const refusals = () => broker.api<AuditEntry[]>('queryLog', { server: 'counter', decision: 'deny' }).then((l) => l.filter((e) => e.kind === 'launch'));
      const first = await refusals();
      expect(first).toHaveLength(1);
      expect(first[0]).toMatchObject({
        actor: 'countersign',
        decidedBy: 'policy',
        detail: 'launch refused: its command line is new or changed; it waits for your approval',
      });
      expect(first[0]!.arguments).toMatchObject({ commandLine: shown.launch.commandLine, hash: shown.launch.hash, client: 'claude-test' });

      // Approved from the queue item (the same sealed approveLaunch the Servers screen uses): it no longer
      // waits, what was counted is written, and the server starts for the client's next try.
      await broker.api('approveLaunch', 'counter', requests[0]!.launch.hash);
      expect(await broker.api('listLaunchRequests')).toEqual([]);
      expect((await refusals()).map((e) => e.detail)).toEqual([
        'launch refused: its command line is new or changed; it waits for your approval',
        'launch refused 3 more times (a client retrying): its command line is new or changed',
      ]);
      const client = await connectClient(broker, 'counter', 'connect');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['bump']);
      await client.close();
    } finally {
      await broker.stop();
      removeDir(dataDir);
    }
  }, 60_000);

  it('asks again, as a new item, when the command changes while it waits', async () => {
    const dataDir = makeDataDir();
    configure(dataDir, { counter: { command: NODE, args: [FIXTURE, 'counter'] } }, [], { consent: false });
    const broker = await startServe(dataDir);
    try {
      expect((await rawPost(broker, 'counter', initRequest('a'))).status).toBe(404);
      const [before] = await broker.api<LaunchRequest[]>('listLaunchRequests');
      await broker.api('removeServer', 'counter');
      await broker.api('addServer', 'counter', { command: NODE, args: [FIXTURE, 'counter', '--changed'] });
      // The old command no longer waits: approving what was shown then is refused.
      expect(await broker.api('listLaunchRequests')).toEqual([]);
      await expect(broker.api('approveLaunch', 'counter', before!.launch.hash)).rejects.toThrow(/changed/);
      expect((await rawPost(broker, 'counter', initRequest('b'))).status).toBe(404);
      const [after] = await broker.api<LaunchRequest[]>('listLaunchRequests');
      expect(after!.launch.hash).not.toBe(before!.launch.hash);
      expect(after!.launch.commandLine).toContain('--changed');
    } finally {
      await broker.stop();
      removeDir(dataDir);
    }
  }, 60_000);
});
