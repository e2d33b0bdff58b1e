// Requests a server makes of the client are surfaced, both ways in: a 2025-11-25 elicitation (form and URL
// mode) as its own audit entry with the server's name and the full text, and a 2026-07-28 input-required
// round on its call's entry. A URL is shown, never fetched: a local server counts the hits it gets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AuditEntry } from '../../shared/api.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../helpers/broker-harness.js';
import { CLI, NODE } from '../helpers/paths.js';
import { connectV2, v2Server } from '../helpers/v2-client.js';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };
const textOf = (r: unknown) => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

/** A 1.x (2025-11-25) client that answers form and URL elicitations without opening anything. */
async function legacyClient(broker: TestBroker, server: string, via: Via, seen: unknown[]): Promise<Client> {
  const client = new Client({ name: 'legacy-elicit', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    seen.push(req.params);
    return req.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { confirm: true } };
  });
  const transport =
    via === 'connect'
      ? new StdioClientTransport({ command: NODE, args: [CLI, 'connect', server, '--data-dir', broker.dataDir], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/${server}`), {
          requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } },
        });
  await client.connect(transport);
  return client;
}

describe.each<Via>(['connect', 'http'])('server requests surfaced via %s', (via) => {
  const notes = v2Server('1.0.0');
  let broker: TestBroker;
  let dataDir: string;
  let hits = 0;
  let bait: Server;
  let url = '';
  beforeAll(async () => {
    bait = createServer((_req, res) => {
      hits += 1;
      res.end('fetched');
    });
    await new Promise<void>((r) => bait.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(bait.address() as AddressInfo).port}/sign-in?state=${via}`;
    dataDir = makeDataDir();
    configure(dataDir, { notes: notes.config }, ['notes']);
    broker = await startServe(dataDir);
  });
  afterAll(async () => {
    await broker.stop();
    removeDir(dataDir);
    removeDir(notes.dir);
    await new Promise((r) => bait.close(r));
  });

  it('logs a 2025-11-25 form elicitation and a URL-mode one as their own entries, and fetches nothing', async () => {
    const seen: unknown[] = [];
    const client = await legacyClient(broker, 'notes', via, seen);
    try {
      expect(textOf(await client.callTool({ name: 'open_link', arguments: { url } }))).toMatch(/^link answered/);
      const call = client.callTool({ name: 'delete_note', arguments: { name: `elicit-${via}` } });
      const pending = await broker.waitForPending((c) => c.tool === 'delete_note');
      await broker.api('decide', pending.id, { kind: 'allow-once' });
      expect(textOf(await call)).toBe(`deleted elicit-${via}`);
      expect(seen).toHaveLength(2);

      const log = await broker.logWhen({ server: 'notes' }, (l) => l.filter((e) => e.kind === 'server-request').length >= 2);
      const asked = log.filter((e: AuditEntry) => e.kind === 'server-request');
      expect(asked.map((e) => e.tool)).toEqual(['open_link', 'delete_note']);
      expect(asked[0]!.detail).toContain(`open a URL (shown here; Countersign does not open it): ${url}`);
      expect(asked[0]!.arguments).toMatchObject({ method: 'elicitation/create', params: { mode: 'url', url } });
      expect(asked[1]!.detail).toContain(`asked the client's user for input: "Delete note elicit-${via}?"`);
      expect(asked.every((e) => e.client === 'legacy-elicit')).toBe(true);
      expect(hits).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('shows a 2026-07-28 URL-mode input round on its call, and fetches nothing', async () => {
    const client = await connectV2(broker, 'notes', via, { elicit: () => ({ action: 'accept' }) });
    try {
      expect(textOf(await client.callTool({ name: 'open_link', arguments: { url: `${url}&modern` } }))).toMatch(/^link answered/);
      const log = await broker.logWhen({ tool: 'open_link' }, (l) =>
        l.some((e) => e.status === 'input-required' && JSON.stringify(e.arguments).includes('modern')),
      );
      const round = log.find((e) => e.status === 'input-required' && JSON.stringify(e.arguments).includes('modern'))!;
      expect(round.detail).toContain(`'signin' (elicitation/create (URL, shown, not opened): ${url}&modern)`);
      expect(round.client).toBe('v2-test-client');
      expect(hits).toBe(0);
    } finally {
      await client.close();
    }
  });
});
