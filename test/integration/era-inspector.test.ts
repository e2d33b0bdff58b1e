// The MCP Inspector CLI in its modern (2026-07-28) mode against both ways in: `connect` and /mcp/<server>.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/api.js';
import type { TestBroker } from '../helpers/broker-harness.js';
import { CLI, NODE, ROOT } from '../helpers/paths.js';
import { v2Server } from '../helpers/v2-client.js';
import { serveForSuite } from '../helpers/served-suite.js';

const INSPECTOR = `${ROOT}node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE, [INSPECTOR, '--cli', '--protocol-era', 'modern', '--format', 'json', '-q', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MCP_CATALOG_PATH: '/nonexistent/none.json' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 55_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the MCP Inspector CLI, modern era', () => {
  const notes = v2Server('1.0.0');
  let broker: TestBroker;
  serveForSuite({ notes: notes.config }, ['notes'], [notes.dir], (b) => (broker = b));

  const ways = (): Record<string, string[]> => ({
    connect: ['--', NODE, CLI, 'connect', 'notes', '--data-dir', broker.dataDir], // after '--': the command, not options
    http: ['--transport', 'http', '--server-url', `${broker.baseUrl}/mcp/notes?client=inspector`, '--header', `Authorization: Bearer ${broker.mcpToken}`],
  });

  it.each(['connect', 'http'])('lists and calls tools via %s', { timeout: 120_000 }, async (via) => {
    const target = ways()[via]!;
    const listed = await inspector(['--method', 'tools/list', ...target]);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { result: { tools: Array<{ name: string }> } }).result.tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['delete_note', 'open_link', 'read_note']);

    const called = await inspector(['--method', 'tools/call', '--tool-name', 'read_note', '--tool-arg', `name=${via}`, ...target]);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ result: { content: [{ type: 'text', text: `note ${via}: hello` }] } });
    const log = await broker.logWhen({ tool: 'read_note' }, (l) => l.some((e) => JSON.stringify(e.arguments).includes(via)));
    expect(log.find((e: AuditEntry) => JSON.stringify(e.arguments).includes(via))).toMatchObject({ decision: 'allow', status: 'ok' });
  });
});
