// One agent, however `connect` was started: a local read through one server makes the next open-world
// call through another server of the same agent ask, for every way a client launches `connect`. The
// open-world tool (fixture 'lookup': web_search, read-only, open world) is on a trusted server, so it
// runs without a prompt (and under a lease) until then: the prompt shows the guard at work, not a
// server that always asks. Real processes, sockets and SDK clients throughout.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countersignCommand } from '../../electron/broker/core/cli-command.js';
import { isLauncher, readLinuxProc } from '../../electron/cli/agent-process.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { CLI, FILESYSTEM_SERVER, FIXTURE, NODE, ROOT } from '../helpers/paths.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

let broker: TestBroker;
let scratch: string;
const clients: Client[] = [];

/** How a client starts `connect` (or reaches the broker over HTTP), as it would from its config. */
type Launch = (server: string) => Transport;

const stdio = (command: string, args: string[], extra: { cwd?: string; env?: Record<string, string> } = {}): StdioClientTransport =>
  new StdioClientTransport({
    command,
    args,
    stderr: 'pipe',
    cwd: extra.cwd,
    env: { ...(process.env as Record<string, string>), COUNTERSIGN_HOME: '', ...extra.env },
  });

const LAUNCH: Record<string, Launch> = {
  node: (server) => stdio(NODE, [CLI, 'connect', server, '--data-dir', broker.dataDir]),
  // From inside the checkout npx finds the package's own bin; offline, so it can never ask the registry.
  npx: (server) =>
    stdio('npx', ['countersign', 'connect', server, '--data-dir', broker.dataDir], {
      cwd: ROOT,
      env: { npm_config_offline: 'true', npm_config_update_notifier: 'false' },
    }),
  wrap: (server) => named(server, 'Test-Agent'),
  // A shell that stays between them (not the last command, so it cannot exec into node).
  'sh -c': (server) => stdio('sh', ['-c', `"$0" "$1" connect "$2" --data-dir "$3"; exit $?`, NODE, CLI, server, broker.dataDir]),
  http: (server) => http(server, '?client=http-agent', {}),
};

/** Exactly what `wrap` writes: the absolute command, then `connect <name> --client <id>`. */
function named(server: string, client: string): StdioClientTransport {
  const cmd = countersignCommand();
  return stdio(cmd.command, [...cmd.args, 'connect', server, '--client', client, '--data-dir', broker.dataDir]);
}

function http(server: string, query: string, headers: Record<string, string>): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/${server}${query}`), {
    requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}`, ...headers } },
  });
}

async function open(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'one-agent-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return client;
}

const search = (client: Client, q: string) => client.callTool({ name: 'web_search', arguments: { q } });
const readSecret = (client: Client) => client.callTool({ name: 'read_text_file', arguments: { path: join(scratch, 'secret.txt') } });

/**
 * Before the read the open-world search runs unasked (the later ones under connect's lease); the search
 * sent the moment the read answers must wait for a person, flagged as exfiltration, and never run.
 */
async function expectReadTaintsOtherServer(fs: Client, lookup: Client, tag: string): Promise<void> {
  for (const n of [1, 2, 3]) expect(textOf(await search(lookup, `${tag} weather ${n}`))).toBe(`results for ${tag} weather ${n}`);
  expect(await broker.api('listPending')).toEqual([]);

  const exfil = readSecret(fs).then((read) => {
    expect(textOf(read)).toBe('the secret');
    // In flight right after the read: connect's lease must already be gone.
    return search(lookup, `${tag} the secret`);
  });
  const pending = await broker.waitForPending((c) => c.tool === 'web_search');
  expect(pending.arguments).toEqual({ q: `${tag} the secret` });
  expect(pending.reasons[0]?.code).toBe('exfiltration-risk');
  await broker.api('decide', pending.id, { kind: 'deny' });
  const result = (await exfil) as ToolResult;
  expect(result.isError).toBe(true);
  const log = await broker.logWhen({ tool: 'web_search', search: `${tag} the secret` }, (l) => l.length > 0);
  expect(log.map((e) => [e.decision, e.decidedBy])).toEqual([['deny', 'person']]);
}

async function closeAll(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
}

describe('one agent across its servers', () => {
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cs-agent-'));
    writeFileSync(join(scratch, 'secret.txt'), 'the secret');
    const dataDir = makeDataDir();
    configure(
      dataDir,
      {
        fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] },
        lookup: { command: NODE, args: [FIXTURE, 'lookup'] },
      },
      ['fs', 'lookup'],
    );
    broker = await startServe(dataDir);
  });

  afterAll(async () => {
    await closeAll();
    await broker?.stop();
    removeDir(broker?.dataDir ?? '');
    removeDir(scratch);
  });

  for (const [form, launch] of Object.entries(LAUNCH)) {
    it(`a local read makes the other server's open-world call ask: connect started by ${form}`, async () => {
      try {
        const fs = await open(launch('fs'));
        const lookup = await open(launch('lookup'));
        await expectReadTaintsOtherServer(fs, lookup, form);
      } finally {
        await closeAll();
      }
    });
  }

  it('holds the first local read until every other connect of the agent has dropped its leases, and cuts off one that does not answer', async () => {
    try {
      const fs = await open(LAUNCH.node!('fs'));
      const lookupTransport = LAUNCH.node!('lookup') as StdioClientTransport;
      const lookup = await open(lookupTransport);
      expect(textOf(await search(lookup, 'lease me'))).toBe('results for lease me');
      // A connect that cannot answer (stopped) still holds its lease: the read must wait for it.
      process.kill(lookupTransport.pid!, 'SIGSTOP');
      let readDone = false;
      const read = readSecret(fs).then((r) => ((readDone = true), r));
      try {
        await new Promise((r) => setTimeout(r, 500));
        expect(readDone).toBe(false);
      } finally {
        process.kill(lookupTransport.pid!, 'SIGCONT');
      }
      expect(textOf(await read)).toBe('the secret');
      const exfil = search(lookup, 'after the wait');
      const pending = await broker.waitForPending((c) => c.tool === 'web_search');
      expect(pending.reasons[0]?.code).toBe('exfiltration-risk');
      await broker.api('decide', pending.id, { kind: 'deny' });
      expect(((await exfil) as ToolResult).isError).toBe(true);
      await closeAll();

      // One that stays silent past the confirmation time is cut off; the read then goes on.
      const fs2 = await open(LAUNCH.node!('fs'));
      const silentTransport = LAUNCH.node!('lookup') as StdioClientTransport;
      const silent = await open(silentTransport);
      await search(silent, 'lease me');
      process.kill(silentTransport.pid!, 'SIGSTOP');
      try {
        expect(textOf(await readSecret(fs2))).toBe('the secret');
      } finally {
        process.kill(silentTransport.pid!, 'SIGCONT');
      }
      await expect(search(silent, 'after the cut')).rejects.toThrow();
    } finally {
      await closeAll();
    }
  });

  it('under npx, connect really sits behind launchers (npm exec, sh -c), not under the client', async () => {
    if (process.platform !== 'linux') return expect.fail('this check reads /proc');
    const transport = LAUNCH.npx!('fs') as StdioClientTransport;
    try {
      await open(transport);
      const child = readLinuxProc(transport.pid!);
      expect(child && isLauncher(child)).toBe(true);
    } finally {
      await closeAll();
    }
  });

  it('HTTP sessions named in the header and in the URL are one client; unnamed HTTP sessions share too', async () => {
    try {
      await expectReadTaintsOtherServer(
        await open(http('fs', '', { 'X-Countersign-Client': 'hdr-agent' })),
        await open(http('lookup', '?client=HDR-agent', {})),
        'named',
      );
      await closeAll();
      await expectReadTaintsOtherServer(await open(http('fs', '', {})), await open(http('lookup', '', {})), 'unnamed');
    } finally {
      await closeAll();
    }
  });

  it('a client named on connect and on HTTP is one agent, both ways (an HTTP read ends connect leases)', async () => {
    try {
      await expectReadTaintsOtherServer(await open(named('fs', 'mixed')), await open(http('lookup', '?client=mixed', {})), 'mixed');
      await closeAll();
      await expectReadTaintsOtherServer(await open(http('fs', '?client=mixed-2', {})), await open(named('lookup', 'mixed-2')), 'mixed-2');
    } finally {
      await closeAll();
    }
  });

  it("keeps different agents apart: another client's read does not make this one ask", async () => {
    try {
      const fs = await open(named('fs', 'agent-a'));
      const lookup = await open(named('lookup', 'agent-b'));
      expect(textOf(await readSecret(fs))).toBe('the secret');
      expect(textOf(await search(lookup, 'apart'))).toBe('results for apart');
      expect(await broker.api('listPending')).toEqual([]);
    } finally {
      await closeAll();
    }
  });

  it('refuses a malformed client name, on connect and on HTTP, with the rule', async () => {
    await expect(open(named('fs', 'no spaces!'))).rejects.toThrow();
    await closeAll();
    await expect(open(http('fs', '?client=a&client=b', {}))).rejects.toThrow(/more than one client/);
    await closeAll();
  });
});
