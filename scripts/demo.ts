// `npm run demo`: a guided first run. Starts `countersign serve` on a throwaway data dir with
// server-filesystem on a scratch folder, opens the approval UI, and runs a small scripted agent (a real
// MCP client through `countersign connect`) that reads a file, overwrites one and moves one. You decide
// each call in the UI and watch the outcome here. Ctrl-C stops everything and deletes the temp folders.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = join(ROOT, 'bin', 'countersign.mjs');
const NODE = process.execPath;
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
const ENV = { ...process.env, COUNTERSIGN_HOME: '' };
// Long enough to read a diff calmly; the client waits as long.
const DECISION_TIMEOUT_S = 600;
const run = promisify(execFile);

const say = (line = '') => process.stdout.write(`${line}\n`);
const step = (line: string) => say(`\n▶ ${line}`);

let serve: ChildProcess | undefined;
let client: Client | undefined;
const dirs: string[] = [];
let cleaning: Promise<never> | undefined;

// Ctrl-C reaches every process in the terminal's group, so the client and broker may already be going:
// clean up once, whoever asks first. A second Ctrl-C skips the wait.
function cleanup(code: number): Promise<never> {
  cleaning ??= doCleanup(code);
  return cleaning;
}

async function doCleanup(code: number): Promise<never> {
  await client?.close().catch(() => undefined);
  if (serve && serve.exitCode === null) {
    const exited = new Promise((r) => serve!.once('exit', r));
    serve.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  say('\nDemo stopped; temporary folders removed.');
  process.exit(code);
}

function openQuietly(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the address is printed.
  }
}

async function ensureBuilt(): Promise<void> {
  if (existsSync(join(ROOT, 'dist', 'cli.mjs')) && existsSync(join(ROOT, 'dist', 'renderer', 'index.html'))) return;
  say('Building Countersign first (npm run build)…');
  await run(NODE, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT });
}

async function startServe(dataDir: string): Promise<{ url: string; base: string; token: string }> {
  serve = spawn(NODE, [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--no-open', '--approval-timeout', String(DECISION_TIMEOUT_S)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: ENV,
  });
  let stderr = '';
  serve.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: serve!.stdout! });
    rl.on('line', (line) => {
      const m = /^Countersign UI: (\S+)$/.exec(line);
      if (!m?.[1]) return;
      const u = new URL(m[1]);
      resolve({ url: m[1], base: u.origin, token: u.hash.replace('#token=', '') });
    });
    serve!.once('exit', (code) => reject(new Error(`countersign serve exited (${code}): ${stderr.trim()}`)));
  });
}

async function api(base: string, token: string, method: string, ...args: unknown[]): Promise<unknown> {
  const res = await fetch(`${base}/api/rpc`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ method, args }),
  });
  const body = (await res.json()) as { ok: boolean; value?: unknown; error?: string };
  if (!body.ok) throw new Error(body.error);
  return body.value;
}

type ToolResult = { isError?: boolean; content?: Array<{ type?: string; text?: string }> };

async function agentCall(label: string, name: string, args: Record<string, unknown>): Promise<void> {
  step(`Agent: ${label}`);
  say(`  calls ${name} ${JSON.stringify(args)}`);
  say('  …held by Countersign: decide in the browser (Approve / Deny, or press a / d).');
  const started = Date.now();
  const result = (await client!.callTool({ name, arguments: args }, undefined, { timeout: (DECISION_TIMEOUT_S + 30) * 1000 })) as ToolResult;
  const text = (result.content ?? [])
    .map((c) => c.text ?? '')
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const took = ((Date.now() - started) / 1000).toFixed(1);
  if (result.isError) say(`  ✘ not done after ${took} s. The agent was told: ${text.slice(0, 300)}`);
  else say(`  ✔ done after ${took} s: ${text.slice(0, 300)}`);
}

async function main(): Promise<void> {
  process.on('SIGINT', () => (cleaning ? process.exit(130) : void cleanup(130)));
  process.on('SIGTERM', () => void cleanup(143));
  await ensureBuilt();

  const dataDir = mkdtempSync(join(tmpdir(), 'countersign-demo-data-'));
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'countersign-demo-files-')));
  dirs.push(dataDir, scratch);
  writeFileSync(join(scratch, 'notes.md'), '# Meeting notes\n\n- Ship the beta on Friday\n- Ask Sam about the budget\n');
  writeFileSync(join(scratch, 'todo.txt'), 'buy milk\nwater the plants\ncall the bank\n');
  writeFileSync(join(scratch, 'draft-report.md'), '# Q3 report (draft)\n\nNumbers go here.\n');

  step('Setting up');
  await run(NODE, [CLI, '--data-dir', dataDir, 'servers', 'add', 'fs', '--', NODE, FILESYSTEM, scratch], { env: ENV });
  say(`  scratch folder: ${scratch} (${readdirSync(scratch).join(', ')})`);
  say(`  server "fs": server-filesystem on that folder (new servers start untrusted: every call asks)`);
  const { url, base, token } = await startServe(dataDir);
  say(`  Countersign UI: ${url}`);
  say('  (opening it in your browser; if nothing opens, paste the address above)');
  openQuietly(url);
  try {
    // As the UI does: approve the command line shown (its hash), so an edit meanwhile would be refused.
    const shown = ((await api(base, token, 'listServers')) as Array<{ name: string; launch: { hash: string } }>).find((s) => s.name === 'fs')!;
    await api(base, token, 'approveLaunch', 'fs', shown.launch.hash);
    say('  approved the server\'s command line for this demo (you would do this under Servers → "Approve command")');
  } catch {
    // An older broker without launch consent: nothing to approve.
  }

  step('The agent connects through `countersign connect fs`, as Claude Desktop or Cursor would');
  client = new Client({ name: 'countersign-demo-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: NODE, args: [CLI, 'connect', 'fs', '--data-dir', dataDir], env: ENV as Record<string, string>, stderr: 'ignore' }),
  );
  const { tools } = await client.listTools();
  say(`  it sees ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);

  await agentCall('read the meeting notes', 'read_text_file', { path: join(scratch, 'notes.md') });
  await agentCall('rewrite the to-do list (the UI shows a diff of the change)', 'write_file', {
    path: join(scratch, 'todo.txt'),
    content: 'buy oat milk\nwater the plants\ncall the bank about the budget\nbook train tickets\n',
  });
  await agentCall('rename the draft report', 'move_file', { source: join(scratch, 'draft-report.md'), destination: join(scratch, 'report-q3.md') });

  step('The agent is done');
  say(`  files now: ${readdirSync(scratch).join(', ')}`);
  say('  Every decision is in the UI under Activity (and in audit.jsonl). Try Servers → fs → Trust, then run the demo again.');
  say('  The UI stays up until you press Ctrl-C, which stops everything and removes the temporary folders.');
}

main().catch(async (err: unknown) => {
  if (cleaning) return; // stopping anyway: a call cut short by Ctrl-C is not an error
  process.stderr.write(`demo: ${(err as Error).message}\n`);
  await cleanup(1);
});
