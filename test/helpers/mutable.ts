// Drives test/fixtures/mutable-server.mjs: its definitions file, and the calls that reached it.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerConfig } from '../../shared/api.js';
import type { ToolDefinition } from '../../shared/tool.js';
import { NODE, ROOT } from './paths.js';

export interface Mutable {
  dir: string;
  config: ServerConfig;
  set(defs: { version?: string; instructions?: string; tools: ToolDefinition[] }): void;
  calls(): Array<{ name: string; arguments: unknown }>;
}

export function mutableServer(initial: { version?: string; instructions?: string; tools: ToolDefinition[] }, opts: { silent?: boolean } = {}): Mutable {
  const dir = mkdtempSync(join(tmpdir(), 'cs-mutable-'));
  const defs = join(dir, 'defs.json');
  const calls = join(dir, 'calls.jsonl');
  writeFileSync(defs, JSON.stringify(initial));
  const env: Record<string, string> = { MUTABLE_DEFS: defs, MUTABLE_CALLS: calls };
  if (opts.silent) env.MUTABLE_SILENT = '1';
  return {
    dir,
    config: { command: NODE, args: [`${ROOT}test/fixtures/mutable-server.mjs`], env },
    set: (d) => writeFileSync(defs, JSON.stringify(d)),
    calls: () =>
      existsSync(calls)
        ? readFileSync(calls, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { name: string; arguments: unknown })
        : [],
  };
}

export const readNotes: ToolDefinition = {
  name: 'read_notes',
  description: 'Reads the notes file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const addNumbers: ToolDefinition = {
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  annotations: { readOnlyHint: true, openWorldHint: false },
};
