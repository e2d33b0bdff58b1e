// A real `countersign serve` with the real server-filesystem over a temp folder, a real client through
// `connect` (relay mode), and the steps undo tests repeat: run a call the person allows, undo by seq.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry, PendingCall } from '../../shared/api.js';
import type { UndoPreview, UndoResult, UndoTarget } from '../../shared/undo.js';
import { configure, connectClient, removeDir, startServe, type TestBroker } from './broker-harness.js';
import { FILESYSTEM_SERVER, NODE } from './paths.js';

export interface UndoWorld {
  root: string;
  files: string;
  dataDir: string;
  broker: TestBroker;
  client: Client;
  /** Runs a tool call, allows it when asked (once), and resolves with its result and the pending card. */
  run(tool: string, args: Record<string, unknown>): Promise<{ result: ToolResult; card: PendingCall; entry: AuditEntry }>;
  undo(target: UndoTarget, opts?: { confirmConflicts?: boolean }): Promise<UndoResult>;
  preview(target: UndoTarget): Promise<UndoPreview>;
  close(): Promise<void>;
}

export type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

export async function undoWorld(opts: { env?: NodeJS.ProcessEnv; dataDir?: string; root?: string } = {}): Promise<UndoWorld> {
  const root = opts.root ?? realpathSync(mkdtempSync(join(tmpdir(), 'cs-undo-')));
  const dataDir = opts.dataDir ?? join(root, 'data');
  const files = join(root, 'files');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(files, { recursive: true });
  if (!opts.dataDir) configure(dataDir, { fs: { command: NODE, args: [FILESYSTEM_SERVER, files], cwd: files } }, ['fs']);
  const broker = await startServe(dataDir, [], opts.env ?? {});
  const client = await connectClient(broker, 'fs', 'connect');
  let count = 0;
  const world: UndoWorld = {
    root,
    files,
    dataDir,
    broker,
    client,
    async run(tool, args) {
      const call = client.callTool({ name: tool, arguments: args });
      const card = await broker.waitForPending((c) => c.tool === tool && JSON.stringify(c.arguments) === JSON.stringify(args));
      await broker.api('decide', card.id, { kind: 'allow-once' });
      const result = (await call) as ToolResult;
      count++;
      const want = count;
      const calls = (e: AuditEntry[]): AuditEntry[] => e.filter((x) => (x.kind ?? 'call') === 'call' && x.decision === 'allow');
      const entry = calls(await broker.logWhen({ server: 'fs' }, (e) => calls(e).length >= want)).at(-1)!;
      return { result, card, entry };
    },
    preview: (target) => broker.api<UndoPreview>('previewUndo', target),
    async undo(target, o) {
      const p = await broker.api<UndoPreview>('previewUndo', target);
      return broker.api<UndoResult>('undo', target, p.hash, ...(o ? [o] : []));
    },
    async close() {
      await client.close().catch(() => undefined);
      await broker.stop();
    },
  };
  return world;
}

export { removeDir };
