// Real v2 SDK clients (@modelcontextprotocol/client 2.x) for a `countersign serve` child: through `connect`
// (stdio) or over HTTP, negotiating 2026-07-28 ('auto' falls back to 2025-11-25; a pin never does).
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from '../../shared/api.js';
import type { TestBroker, Via } from './broker-harness.js';
import { CLI, NODE, ROOT } from './paths.js';

export const MODERN = '2026-07-28';

export interface V2Options {
  mode?: 'auto' | 'legacy' | { pin: string };
  name?: string;
  /** Answers elicitations (form mode); the default declines. */
  elicit?: (params: Record<string, unknown>) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
}

export async function connectV2(broker: TestBroker, server: string, via: Via, opts: V2Options = {}): Promise<Client> {
  const client = new Client(
    { name: opts.name ?? 'v2-test-client', version: '2.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: opts.mode ?? { pin: MODERN } } },
  );
  const elicit = opts.elicit ?? (() => ({ action: 'decline' as const }));
  client.setRequestHandler('elicitation/create', async (req) => elicit(req.params as Record<string, unknown>) as never);
  const transport =
    via === 'connect'
      ? new StdioClientTransport({ command: NODE, args: [CLI, 'connect', server, '--data-dir', broker.dataDir], stderr: 'pipe' })
      : new StreamableHTTPClientTransport(new URL(`${broker.baseUrl}/mcp/${server}`), {
          requestInit: { headers: { Authorization: `Bearer ${broker.mcpToken}` } },
        });
  await client.connect(transport);
  return client;
}

/** test/fixtures/v2-server.mjs with its own version file and calls log. */
/** `tag` is an extra argument the server ignores, so a test can find its processes (pidsTagged). */
export function v2Server(
  version = '1.0.0',
  tag?: string,
): { config: ServerConfig; dir: string; setVersion(v: string): void; callsFile: string; addTool(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cs-v2-'));
  const versionFile = join(dir, 'version');
  const callsFile = join(dir, 'calls.jsonl');
  const toolsFile = join(dir, 'tools');
  writeFileSync(versionFile, version);
  writeFileSync(toolsFile, '0');
  return {
    dir,
    callsFile,
    config: {
      command: NODE,
      args: [`${ROOT}test/fixtures/v2-server.mjs`, ...(tag ? [tag] : [])],
      env: { V2_VERSION_FILE: versionFile, V2_CALLS: callsFile, V2_TOOLS_FILE: toolsFile },
    },
    setVersion: (v) => writeFileSync(versionFile, v),
    addTool: () => writeFileSync(toolsFile, String(Date.now())),
  };
}
