// The variables that say how to reach the network and which certificates to trust reach servers by
// default, through the real `serve`, as root and as an unprivileged user (setpriv): a CA file outside
// anything a limited server may see is readable inside its sandbox, `--no-pass-env` takes them all
// away, and a proxy's password never appears in anything Countersign shows or logs.
import { chownSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, ServerConfig, ServerView } from '../../shared/api.js';
import { connectClient, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { runCli } from '../helpers/cli-run.js';
import { approveShown } from '../helpers/consent.js';
import { NODE, ROOT } from '../helpers/paths.js';

const STARTUP = join(ROOT, 'test/fixtures/startup-server.mjs');
const NOBODY = 65534;
const PASSWORD = 'hunter2-proxy-password';
const PROXY = `http://ann:${PASSWORD}@proxy.invalid:3128`;
const NAMES = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'HTTPS_PROXY',
  'https_proxy',
  'NO_PROXY',
  'npm_config_registry',
  'PIP_INDEX_URL',
  'UV_INDEX_URL',
  'GITHUB_TOKEN',
];

function chownTree(path: string, uid: number): void {
  chownSync(path, uid, uid);
  if (statSync(path).isDirectory()) for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

describe.skipIf(process.platform !== 'linux')('network variables reach servers', () => {
  describe.each(['root', 'nobody'] as const)('started by %s', (who) => {
    let root: string;
    let ca: string;
    let broker: TestBroker;
    let env: Record<string, string>;

    beforeAll(async () => {
      root = realpathSync(mkdtempSync(join(tmpdir(), 'cs-netenv-')));
      const home = join(root, 'home');
      // The company CA lives in the home folder: a limited server sees none of it, but must read this file.
      mkdirSync(join(home, 'corp'), { recursive: true });
      ca = join(home, 'corp', 'ca.pem');
      writeFileSync(ca, '-----BEGIN CERTIFICATE-----\ncorp\n-----END CERTIFICATE-----\n');
      writeFileSync(join(home, 'corp', 'notes.txt'), 'not for servers');
      if (who === 'nobody') chownTree(root, NOBODY);
      env = {
        PATH: process.env.PATH!,
        HOME: home,
        COUNTERSIGN_KEY_DIR: join(root, 'keys'),
        COUNTERSIGN_HOME: '',
        LANG: 'C.UTF-8',
        NODE_EXTRA_CA_CERTS: ca,
        SSL_CERT_FILE: ca,
        HTTPS_PROXY: PROXY,
        https_proxy: PROXY,
        NO_PROXY: 'localhost,127.0.0.1',
        npm_config_registry: `https://ann:${PASSWORD}@npm.corp.invalid/`,
        PIP_INDEX_URL: 'https://pypi.corp.invalid/simple',
        UV_INDEX_URL: 'https://pypi.corp.invalid/simple',
        GITHUB_TOKEN: 'ghp-not-for-servers',
      };
      const as = who === 'nobody' ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'] : undefined;
      broker = await startServe(join(home, '.config', 'Countersign'), [], env, { as, cleanEnv: true });
      const servers: Record<string, ServerConfig> = {
        plain: { command: NODE, args: [STARTUP, 'env'] },
        limited: { command: NODE, args: [STARTUP, 'env'], limits: { network: 'none', filesystem: { read: [], write: [] }, passEnv: [] } },
        bare: { command: NODE, args: [STARTUP, 'env'], limits: { network: 'unrestricted', filesystem: 'host', passEnv: [], noPassEnv: ['*'] } },
      };
      for (const [name, config] of Object.entries(servers)) {
        await broker.api('addServer', name, config);
        await approveShown(broker.api, name);
      }
    }, 60_000);

    afterAll(async () => {
      await broker?.stop();
      removeDir(root);
    });

    async function call(server: string, tool: string, args: Record<string, unknown>): Promise<{ text: string; isError?: boolean }> {
      const client = await connectClient(broker, server, 'http');
      try {
        const result = client.callTool({ name: tool, arguments: args });
        const pending = await broker.waitForPending((c) => c.server === server);
        await broker.api('decide', pending.id, { kind: 'allow-once' });
        const r = (await result) as { content: Array<{ text: string }>; isError?: boolean };
        return { text: r.content[0]!.text, isError: r.isError };
      } finally {
        await client.close();
      }
    }
    const envOf = async (server: string) => JSON.parse((await call(server, 'env', { names: NAMES })).text) as Record<string, string | null>;

    it('a server gets the proxy, CA and index variables by default, and still no secrets', { timeout: 30_000 }, async () => {
      expect(await envOf('plain')).toEqual({ ...Object.fromEntries(NAMES.map((n) => [n, env[n]])), GITHUB_TOKEN: null });
    });

    it('a server that sees none of the home folder reads the CA file its variables name, and nothing beside it', { timeout: 30_000 }, async () => {
      expect((await envOf('limited')).NODE_EXTRA_CA_CERTS).toBe(ca);
      expect(await call('limited', 'read', { path: ca })).toEqual({
        text: '-----BEGIN CERTIFICATE-----\ncorp\n-----END CERTIFICATE-----\n',
        isError: undefined,
      });
      const beside = await call('limited', 'read', { path: join(root, 'home', 'corp', 'notes.txt') });
      expect(beside.isError).toBe(true);
      expect(beside.text).toMatch(/^ENOENT/);
    });

    it('--no-pass-env (noPassEnv *) takes every one of them away', { timeout: 30_000 }, async () => {
      expect(Object.values(await envOf('bare')).every((v) => v === null)).toBe(true);
    });

    it('shows the variables by name only: the limits view, the servers list, the log', { timeout: 30_000 }, async () => {
      const servers = await broker.api<ServerView[]>('listServers');
      const plain = servers.find((s) => s.name === 'plain')!;
      expect(plain.limits?.networkEnv).toEqual([
        'HTTPS_PROXY',
        'NODE_EXTRA_CA_CERTS',
        'NO_PROXY',
        'PIP_INDEX_URL',
        'SSL_CERT_FILE',
        'UV_INDEX_URL',
        'https_proxy',
        'npm_config_registry',
      ]);
      expect(servers.find((s) => s.name === 'bare')!.limits?.networkEnv).toEqual([]);
      const everything = JSON.stringify([servers, await broker.api<AuditEntry[]>('queryLog', {}), await broker.api('getStatus')]);
      expect(everything).not.toContain(PASSWORD);
      expect(broker.stderr()).not.toContain(PASSWORD);
      if (who === 'root') {
        const shown = await runCli(broker.dataDir, 'servers', 'limits', 'plain');
        expect(shown.stdout).toContain(
          'network variables: HTTPS_PROXY, NODE_EXTRA_CA_CERTS, NO_PROXY, PIP_INDEX_URL, SSL_CERT_FILE, UV_INDEX_URL, https_proxy, npm_config_registry (values not shown)',
        );
        expect(shown.stdout + shown.stderr).not.toContain(PASSWORD);
        const doctor = await runCli(broker.dataDir, 'doctor', '--json');
        expect(doctor.stdout).toContain('"code": "broker.running"');
        expect(doctor.stdout + doctor.stderr).not.toContain(PASSWORD);
        const bare = await runCli(broker.dataDir, 'servers', 'limits', 'bare');
        expect(bare.stdout).toContain('network variables: not passed (--no-pass-env); give them back with --network-env');
      }
    });

    // The CLI as root (the test's own user) against the broker: once, not for each user.
    if (who === 'root')
      it('the CLI takes them away at once (tighter) and gives them back with consent (looser)', { timeout: 30_000 }, async () => {
        const off = await runCli(broker.dataDir, 'servers', 'limits', 'plain', '--no-pass-env');
        expect(off.stdout).toContain("Limits of 'plain' are now: no network variables (applied at once");
        expect(Object.values(await envOf('plain')).every((v) => v === null)).toBe(true);
        // Looser needs consent: without a terminal, --yes alone changes nothing; with the launch hash shown it does.
        const refused = await runCli(broker.dataDir, 'servers', 'limits', 'plain', '--network-env', '--yes');
        expect(refused.stdout).toContain('Now:  no network variables\nThen: no limits');
        expect(Object.values(await envOf('plain')).every((v) => v === null)).toBe(true);
        const hash = (await broker.api<ServerView[]>('listServers')).find((s) => s.name === 'plain')!.launch!.hash;
        const on = await runCli(broker.dataDir, 'servers', 'limits', 'plain', '--network-env', '--yes', '--hash', hash);
        expect(on.stdout).toContain('Now:  no network variables\nThen: no limits');
        expect((await envOf('plain')).HTTPS_PROXY).toBe(PROXY);
      });
  });
});
