// The broker's local socket, attacked for real: a running `countersign serve`, raw peers on its socket,
// the real CLI and `connect`, and a process that reaches the socket but not the data dir (in a bubblewrap
// sandbox, and as another user). Reaching the socket must give nothing: every hello proves it knows this
// run's secret, the API only after a challenge, and a `connect` session only its own server.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, BrokerStatus, PendingCall, ServerView } from '../../shared/api.js';
import { API_METHODS } from '../../shared/api-schema.js';
import { reportsSocketPath, socketPath } from '../../electron/broker/store/data-dir.js';
import { brokerProof, cliProof, newNonce } from '../../electron/broker/local/api-handshake.js';
import { readSocketSecret, secretFile, type SocketSecret } from '../../electron/broker/local/secret-file.js';
import { REFUSAL_WINDOW_MS } from '../../electron/broker/local/refusal-audit.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { viewOf } from '../helpers/consent.js';
import { CLI, MEMORY_SERVER, NODE, ROOT } from '../helpers/paths.js';
import { rpc, SocketPeer } from '../helpers/socket-peer.js';

const INTRUDER = join(ROOT, 'test/fixtures/socket-intruder.mjs');
const MEM = { command: NODE, args: [MEMORY_SERVER] };

function secretOf(dataDir: string): SocketSecret {
  const read = readSocketSecret(dataDir);
  if (!read.ok) throw new Error(read.why);
  return read.secret;
}

/** The access entries of a stopped broker's log (the CLI reads the file), and how many refusals they count. */
async function refusalsLogged(dataDir: string): Promise<{ entries: AuditEntry[]; count: number; roles: Set<string> }> {
  const out = await runCli(dataDir, 'log', '--json');
  const entries = out.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry)
    .filter((e) => e.kind === 'access');
  const details = entries.map((e) => e.arguments as { count: number; reasons: Record<string, number> });
  const roles = new Set(details.flatMap((d) => Object.keys(d.reasons).map((k) => k.split(':')[0]!)));
  return { entries, count: details.reduce((n, d) => n + d.count, 0), roles };
}

async function apiPeer(broker: TestBroker, secret: SocketSecret): Promise<{ peer: SocketPeer; proof: string; nonce: string }> {
  const peer = new SocketPeer(socketPath(broker.dataDir));
  const nonce = newNonce();
  peer.send({ countersign: 1, api: true, nonce });
  const challenge = await peer.line(0);
  expect(challenge).toMatchObject({ ok: true, mode: 'challenge' });
  expect(challenge.proof).toBe(brokerProof(secret.api, nonce, challenge.nonce as string));
  const proof = cliProof(secret.api, nonce, challenge.nonce as string);
  peer.send({ countersign: 1, proof });
  expect(await peer.line(1)).toEqual({ countersign: 1, ok: true, mode: 'api' });
  return { peer, proof, nonce };
}

describe('the local socket', () => {
  let dir: string;
  let broker: TestBroker;

  beforeAll(async () => {
    dir = makeDataDir();
    configure(dir, { mem: MEM });
    broker = await startServe(dir);
  });

  afterAll(async () => {
    await broker?.stop();
    removeDir(dir);
  });

  it('refuses the API to a peer with no proof: one error line, the socket closed, its calls never run, the attempt logged', async () => {
    const peer = new SocketPeer(socketPath(dir));
    // As the issue's server did: the hello and its calls in one write.
    peer.send({ countersign: 1, api: true }, rpc(1, 'setPaused', true), rpc(2, 'addServer', 'planted', { command: '/bin/sh' }));
    const lines = await peer.untilClosed();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ ok: false });
    expect(lines[0]!.error).toMatch(
      /refused this connection: it asked for the API without a proof.*Only a command run by the user who runs Countersign can read .*socket-secret\.json/,
    );
    expect((await broker.api<BrokerStatus>('getStatus')).paused).toBe(false);
    expect((await broker.api<ServerView[]>('listServers')).map((s) => s.name)).toEqual(['mem']);
    const access = await broker.logWhen({}, (l) => l.some((e) => e.kind === 'access'));
    expect(access.find((e) => e.kind === 'access')).toMatchObject({
      decision: 'deny',
      tool: 'api',
      detail: expect.stringMatching(/^refused a connection on the local socket \(api\)/),
    });
  });

  it("refuses a proof made without the secret, a proof replayed from another connection, and the broker's own proof sent back", async () => {
    const secret = secretOf(dir);
    const good = await apiPeer(broker, secret);
    try {
      const tries: Array<[string, (brokerNonce: string) => string, string?]> = [
        ['made up', () => 'A'.repeat(43)],
        ['made with a guessed secret', (bn) => cliProof(Buffer.alloc(32, 7).toString('base64url'), good.nonce, bn)],
        // Same hello as the good connection, its proof sent again: the broker's nonce is new, so it is worthless.
        ['replayed', () => good.proof, good.nonce],
        // Reflection: the broker's proof for this very challenge, labelled apart from the CLI's.
        ['reflected', () => ''],
      ];
      for (const [what, make, reuse] of tries) {
        const peer = new SocketPeer(socketPath(dir));
        peer.send({ countersign: 1, api: true, nonce: reuse ?? newNonce() });
        const challenge = await peer.line(0);
        const proof = what === 'reflected' ? (challenge.proof as string) : make(challenge.nonce as string);
        peer.send({ countersign: 1, proof }, rpc(1, 'setPaused', true));
        const lines = await peer.untilClosed();
        expect(lines, what).toHaveLength(2);
        expect(lines[1], what).toMatchObject({ ok: false, error: expect.stringMatching(/its proof does not match the socket secret of this broker run/) });
      }
      expect((await broker.api<BrokerStatus>('getStatus')).paused).toBe(false);
      // The proven connection still has the API.
      good.peer.send(rpc(7, 'getStatus'));
      expect(await good.peer.line(2)).toMatchObject({ id: 7, result: { value: { paused: false } } });
    } finally {
      good.peer.close();
    }
  });

  it('gives a connect session its own server and nothing of the API, in relay and pipe mode', async () => {
    const secret = secretOf(dir);
    for (const hello of [
      { countersign: 1, server: 'mem', relay: true },
      { countersign: 1, server: 'mem', relay: true, secret: secret.api },
      { countersign: 1, server: 'mem', secret: 'x' },
    ]) {
      const peer = new SocketPeer(socketPath(dir));
      peer.send(hello);
      const lines = await peer.untilClosed();
      expect(lines).toEqual([
        {
          countersign: 1,
          ok: false,
          error: expect.stringMatching(
            /refused this connection: (it did not present the socket secret of this broker run|the socket secret it presented is not this broker run's)/,
          ),
        },
      ]);
    }
    const relay = new SocketPeer(socketPath(dir));
    const pipe = new SocketPeer(socketPath(dir));
    try {
      relay.send({ countersign: 1, server: 'mem', relay: true, client: 'probe', secret: secret.connect });
      const reply = await relay.line(0);
      expect(reply).toMatchObject({ ok: true, mode: 'relay', attach: expect.any(String), reports: { token: expect.any(String) } });
      // Every API method on the control channel, as the API takes its arguments: none is a control method,
      // but for `decide`, which there submits a call of this session to the gate and refuses the API's shape.
      const pendingLike = ['some-pending-id', { kind: 'allow-once' }];
      API_METHODS.forEach((m, i) => relay.send(rpc(100 + i, m, ...(m === 'decide' ? pendingLike : []))));
      const answers = await Promise.all(
        API_METHODS.map(async (_m, i) => {
          for (let n = 1; ; n++) {
            const line = await relay.line(n);
            if (line.id === 100 + i) return line;
          }
        }),
      );
      for (const [i, a] of answers.entries()) {
        const m = API_METHODS[i]!;
        if (m === 'decide') {
          // The gate cannot read the API's shape as a call: refused (and logged), never an approval.
          expect(a, m).toMatchObject({
            result: {
              forward: false,
              result: { isError: true, content: [{ text: expect.stringMatching(/refused this call before deciding it.*could not read it/) }] },
            },
          });
          continue;
        }
        expect(a, m).toMatchObject({ error: { message: `unknown control method ${m}` } });
        expect(a, m).not.toHaveProperty('result');
      }

      // Its tokens open only what they were made for, once: the reports token is no attach token, and
      // the attach token is nothing on the report socket.
      const { attach, reports } = reply as { attach: string; reports: { path: string; token: string } };
      for (const [path, line] of [
        [socketPath(dir), { countersign: 1, attach: reports.token }],
        [reportsSocketPath(dir), { countersign: 1, reports: attach }],
      ] as const) {
        const p = new SocketPeer(path);
        p.send(line);
        expect(await p.untilClosed()).toEqual([]);
      }
      const data = new SocketPeer(socketPath(dir));
      data.send({ countersign: 1, attach });
      // The server reads the connection itself once it runs (as `connect` does, wait for the broker's word).
      for (let n = 1; ; n++) if ((await relay.line(n)).method === 'upstream') break;
      data.socket.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } })}\n`,
      );
      expect(await data.line(0)).toMatchObject({ id: 1, result: { serverInfo: expect.any(Object) } });
      const again = new SocketPeer(socketPath(dir));
      again.send({ countersign: 1, attach });
      expect(await again.untilClosed()).toEqual([]);
      data.close();

      // Pipe mode: the session is MCP to the server, through the gate; an API request is just a message to it.
      pipe.send({ countersign: 1, server: 'mem', client: 'probe', secret: secret.connect });
      expect(await pipe.line(0)).toEqual({ countersign: 1, ok: true, mode: 'pipe' });
      pipe.send(rpc(1, 'setPaused', true), rpc(2, 'setTrust', 'mem', false));
      expect(await pipe.line(1)).toMatchObject({ error: expect.any(Object) });
      expect(await pipe.line(2)).toMatchObject({ error: expect.any(Object) });
      const status = await broker.api<BrokerStatus>('getStatus');
      expect(status.paused).toBe(false);
      expect((await viewOf(broker.api, 'mem')).trusted).toBe(false);
    } finally {
      relay.close();
      pipe.close();
    }
  });

  it('keeps the real CLI working over the socket, proving itself without a word from the person', async () => {
    const list = await runCli(dir, 'servers', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ name: string }>).map((s) => s.name)).toEqual(['mem']);
    const added = await runCli(dir, 'servers', 'add', 'mem2', '--', NODE, MEMORY_SERVER);
    expect(added.code, added.stderr).toBe(0);
    const log = await broker.api<AuditEntry[]>('queryLog', { server: 'mem2' });
    expect(log.map((e) => [e.kind, e.actor])).toEqual([['server', 'cli']]);
    expect((await runCli(dir, 'servers', 'remove', 'mem2')).code).toBe(0);
    const read = await runCli(dir, 'log');
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/mem2/);
  });
});

describe('the socket secret', () => {
  it("is this run's alone: 0600, a new one each run, gone when the broker stops", async () => {
    const dir = makeDataDir();
    try {
      const first = await startServe(dir);
      const file = secretFile(dir);
      const one = secretOf(dir);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await first.stop();
      expect(existsSync(file)).toBe(false);
      const second = await startServe(dir);
      try {
        const two = secretOf(dir);
        expect(two.api).not.toBe(one.api);
        expect(two.connect).not.toBe(one.connect);
        // The old run's connect secret opens nothing now.
        const peer = new SocketPeer(socketPath(dir));
        peer.send({ countersign: 1, server: 'mem', secret: one.connect });
        expect(await peer.untilClosed()).toEqual([expect.objectContaining({ ok: false })]);
      } finally {
        await second.stop();
      }
    } finally {
      removeDir(dir);
    }
  });

  it('the CLI will not talk to a socket that cannot prove it is the broker, and sends it no proof', async () => {
    const dir = makeDataDir();
    const heard: string[] = [];
    const impostor = createServer((s) => {
      s.setEncoding('utf8');
      s.on('data', (d: string) => {
        heard.push(...d.split('\n').filter(Boolean));
        s.write(JSON.stringify({ countersign: 1, ok: true, mode: 'challenge', nonce: newNonce(), proof: 'A'.repeat(43) }) + '\n');
      });
    });
    try {
      writeFileSync(secretFile(dir), JSON.stringify({ version: 1, connect: newNonce(), api: newNonce() }), { mode: 0o600 });
      await new Promise<void>((resolve) => impostor.listen(socketPath(dir), resolve));
      const out = await runCli(dir, 'servers', 'list');
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/could not prove it is the Countersign broker that wrote the socket secret/);
      expect(heard.map((l) => Object.keys(JSON.parse(l) as object).sort())).toEqual([['api', 'countersign', 'nonce']]);
    } finally {
      await new Promise((r) => impostor.close(r));
      removeDir(dir);
    }
  });

  it('counts a flood of refused connections instead of writing each one', async () => {
    const dir = makeDataDir();
    const FLOOD = 120;
    try {
      const broker = await startServe(dir);
      const started = Date.now();
      try {
        for (let batch = 0; batch < FLOOD / 20; batch++) {
          await Promise.all(
            Array.from({ length: 20 }, async () => {
              const peer = new SocketPeer(socketPath(dir));
              peer.send({ countersign: 1, api: true });
              await peer.untilClosed();
            }),
          );
        }
      } finally {
        await broker.stop();
      }
      const elapsed = Date.now() - started;
      const { entries, count } = await refusalsLogged(dir);
      // Every refusal counted (the last ones written as the broker stopped), in one entry per window.
      expect(count).toBe(FLOOD);
      expect(entries.length).toBeLessThanOrEqual(2 + Math.floor(elapsed / REFUSAL_WINDOW_MS));
      expect(entries[0]!.detail).toMatch(/^refused a connection on the local socket \(api\)/);
      expect(entries.at(-1)!.detail).toMatch(/^refused \d+ more connections on the local socket/);
    } finally {
      removeDir(dir);
    }
  });
});

/**
 * A process that reaches the socket but cannot read the secret: it tries the API, sessions and data
 * connections, the real CLI and the real `connect`. Nothing changes, and every attempt is in the log.
 */
describe.skipIf(process.platform !== 'linux')('a peer that reaches the socket but not the data dir', () => {
  const ATTEMPTS = 9; // the intruder's raw tries (6), the CLI twice, `connect` once

  async function intrude(wrap: (dir: string, argv: string[]) => { command: string; args: string[] }, prepare?: (dir: string) => void): Promise<void> {
    const dir = makeDataDir();
    configure(dir, { mem: MEM });
    const broker = await startServe(dir);
    const client = await connectClient(broker, 'mem', 'connect');
    let stopped = false;
    try {
      const call = client.callTool({ name: 'read_graph', arguments: {} });
      call.catch(() => undefined);
      const pending = await broker.waitForPending((c) => c.server === 'mem');
      const before = await viewOf(broker.api, 'mem');
      const seen = JSON.stringify({ launchHash: before.launch.hash, ...(before.listingHash ? { listingHash: before.listingHash } : {}) });
      prepare?.(dir);
      const argv = [INTRUDER, socketPath(dir), dir, pending.id, 'mem', seen, CLI];
      const { command, args } = wrap(dir, argv);
      const out = JSON.parse(await runToEnd(command, args)) as Record<string, unknown>;

      // What it got: refusals, each a line and a closed socket; nothing from the API.
      const refused = { countersign: 1, ok: false, error: expect.any(String) };
      expect(out.apiBare).toEqual([refused]);
      expect(out.apiForged).toEqual([expect.objectContaining({ mode: 'challenge' }), refused]);
      for (const k of ['connectBare', 'connectGuess', 'pipeGuess']) expect(out[k], k).toEqual([{ ...refused, error: expect.stringMatching(/socket secret/) }]);
      expect(out.attachGuess).toEqual([]);
      for (const k of ['cliTrust', 'cliList']) {
        const r = out[k] as { code: number; stderr: string };
        expect(r.code, k).toBe(1);
        expect(r.stderr, k).toMatch(/^countersign: (this process may not read|Countersign's broker is running for .*, but)/);
        expect(r.stderr, k).toMatch(/Run it as the user who runs Countersign|is not there for this process: it runs where Countersign's data folder is hidden/);
      }
      const connect = out.connect as { code: number; stdout: string };
      expect(connect.code).toBe(1);
      expect(JSON.parse(connect.stdout)).toMatchObject({
        id: 1,
        error: { message: expect.stringMatching(/refused this connection: it did not present the socket secret/) },
      });

      // And nothing changed: the call still waits, trust and servers are as they were, not paused.
      expect((await broker.api<PendingCall[]>('listPending')).map((c) => c.id)).toEqual([pending.id]);
      const after = await viewOf(broker.api, 'mem');
      expect(after.trusted).toBe(false);
      expect(after.launch).toEqual(before.launch);
      expect((await broker.api<ServerView[]>('listServers')).map((s) => s.name)).toEqual(['mem']);
      expect((await broker.api<BrokerStatus>('getStatus')).paused).toBe(false);
      await broker.api('decide', pending.id, { kind: 'deny', reason: 'test over' });
      await client.close();
      await broker.stop();
      stopped = true;
      const { count, roles } = await refusalsLogged(dir);
      expect(count).toBe(ATTEMPTS);
      expect([...roles].sort()).toEqual(['api', 'attach', 'connect', 'handshake']);
    } finally {
      if (!stopped) {
        await client.close().catch(() => undefined);
        await broker.stop();
      }
      chmodSync(dir, 0o700);
      removeDir(dir);
    }
  }

  it('in a bubblewrap sandbox handed the socket, with the data dir hidden', async () => {
    await intrude((dir, argv) => {
      const sock = socketPath(dir);
      return {
        command: 'bwrap',
        args: [
          '--unshare-all',
          '--die-with-parent',
          '--cap-drop',
          'ALL',
          '--ro-bind',
          '/',
          '/',
          '--dev',
          '/dev',
          '--proc',
          '/proc',
          // The checkout back in view (it may itself live under /tmp), read-only: the intruder script runs from it.
          '--tmpfs',
          '/tmp',
          '--ro-bind',
          ROOT,
          ROOT,
          '--tmpfs',
          dir,
          '--bind',
          sock,
          sock,
          '--',
          NODE,
          ...argv,
        ],
      };
    });
  });

  it.skipIf(process.getuid?.() !== 0)("as another user let through the socket's mode", async () => {
    await intrude(
      (_dir, argv) => ({ command: 'setpriv', args: ['--reuid=65534', '--regid=65534', '--clear-groups', NODE, ...argv] }),
      (dir) => {
        // It may pass through the data dir and connect to the sockets, but read nothing in it.
        chmodSync(dir, 0o711);
        chmodSync(socketPath(dir), 0o666);
        chmodSync(reportsSocketPath(dir), 0o666);
        expect(() => execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'cat', secretFile(dir)], { stdio: 'pipe' })).toThrow();
      },
    );
  });
});

function runToEnd(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: '/nonexistent', COUNTERSIGN_HOME: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${command} exited ${code}: ${stderr}`))));
  });
}
