// A test world: a scratch folder with files, a real `countersign serve` with server-filesystem on that
// folder, and helpers to open the UI and connect real MCP clients. Built on the integration harness.
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from '@playwright/test';
import type { ServerConfig } from '../../shared/api.js';
import { configure, connectClient, makeDataDir, removeDir, startServe, type TestBroker, type Via } from '../../test/helpers/broker-harness.js';
import { FILESYSTEM_SERVER, NODE } from '../../test/helpers/paths.js';

export interface World {
  broker: TestBroker;
  scratch: string;
  uiUrl: string;
  connect(server?: string, via?: Via): Promise<Client>;
  openUi(page: Page): Promise<void>;
  stop(): Promise<void>;
}

export interface WorldOptions {
  files?: Record<string, string>;
  /** Extra servers; `fs` (server-filesystem on the scratch folder) is always there. */
  servers?: Record<string, ServerConfig>;
  trusted?: string[];
  serveArgs?: string[];
  /** Extra environment for `serve` (e.g. HOME, for the clients it finds). */
  env?: NodeJS.ProcessEnv;
}

export async function startWorld(opts: WorldOptions = {}): Promise<World> {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'cs-e2e-files-')));
  for (const [name, content] of Object.entries(opts.files ?? {})) writeFileSync(join(scratch, name), content);
  const dataDir = makeDataDir();
  configure(dataDir, { fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] }, ...opts.servers }, opts.trusted ?? []);
  const broker = await startServe(dataDir, opts.serveArgs ?? [], opts.env, { cwd: scratch }); // its project configs are the scratch folder's: none
  const clients: Client[] = [];
  const uiUrl = `${broker.baseUrl}/#token=${broker.apiToken}`;
  let stopped = false;
  return {
    broker,
    scratch,
    uiUrl,
    async connect(server = 'fs', via: Via = 'connect') {
      const c = await connectClient(broker, server, via);
      clients.push(c);
      return c;
    },
    async openUi(page) {
      await page.goto(uiUrl);
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
    },
    // Idempotent: afterEach may see the previous test's world when a test was skipped before beforeEach.
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled(clients.map((c) => c.close()));
      await broker.stop();
      removeDir(dataDir);
      removeDir(scratch);
    },
  };
}

/** The text of a tool result, for assertions. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type?: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}
