// A real `countersign serve` on a temp data dir, for benchmarks. Call stop() in `finally`: it ends the
// broker (which ends its upstream servers) and removes the data dir. An exit hook backs it up.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { SettingsPatch } from '../shared/api.js';
import { TIER_UP_FLAG } from '../electron/broker/core/tier-up.js';
import { GrantSeal } from '../electron/broker/store/grant-seal.js';
import { SettingsStore } from '../electron/broker/store/settings-store.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const CLI = join(ROOT, 'bin', 'countersign.mjs');
export const NODE = process.execPath;
/**
 * Node flags of the floors (byte pipe, socket pipe, HTTP floor): the V8 setting a busy Countersign process
 * runs with (tier-up.ts), from their first call, so the floors are as fast as they can be and the ratios compare like for like.
 */
export const FLOOR_FLAGS = [TIER_UP_FLAG];
export const EVERYTHING_SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

const run = promisify(execFile);
// Like the test harness: the data dir comes from --data-dir only.
const ENV = { ...process.env, COUNTERSIGN_HOME: '' };

export interface BenchServer {
  name: string;
  command: string[];
  trusted?: boolean;
  /** More `servers add` flags (--cwd DIR, --no-pass-env…). */
  addFlags?: string[];
}

export interface BenchBroker {
  dataDir: string;
  baseUrl: string;
  mcpToken: string;
  pid?: number;
  /** The last few KB of the broker's stderr, for error messages. */
  stderr(): string;
  stop(): Promise<void>;
}

/** `countersign --data-dir D <args…>`: the flag goes first, since everything after `--` belongs to the server. */
export async function cli(dataDir: string, ...args: string[]): Promise<void> {
  await run(NODE, [CLI, '--data-dir', dataDir, ...args], { env: ENV });
}

/**
 * A consent-giving command (`servers approve|trust …`) as a script that read what it grants: without a
 * terminal the CLI refuses and names the flags that bind the grant to what it printed; run it again with them.
 */
export async function grantCli(dataDir: string, ...args: string[]): Promise<void> {
  try {
    await cli(dataDir, ...args);
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    const said = typeof stderr === 'string' ? stderr : '';
    const flags = /run again with (--yes[^\n]*?)\.?$/m.exec(said)?.[1];
    if (!flags) throw err;
    await cli(dataDir, ...args, ...flags.split(' '));
  }
}

/** `settings`: written before the broker starts (e.g. an audit export destination). */
export async function startBroker(servers: BenchServer[], settings?: SettingsPatch): Promise<BenchBroker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cs-bench-'));
  let stderr = '';
  let child: ReturnType<typeof spawn> | undefined;
  const killNow = (): void => void child?.kill('SIGKILL');
  const stop = async (): Promise<void> => {
    process.off('exit', killNow);
    const c = child;
    if (c && c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (const s of servers) {
      await cli(dataDir, 'servers', 'add', s.name, ...(s.addFlags ?? []), '--', ...s.command);
      await grantCli(dataDir, 'servers', 'approve', s.name);
      if (s.trusted) await grantCli(dataDir, 'servers', 'trust', s.name);
    }
    if (settings) {
      // As Countersign saves them: an audit export destination is sealed (the copy in effect), then written.
      const seal = GrantSeal.open(dataDir, ENV, () => undefined);
      if (settings.auditExport) seal.update((g) => void (g.auditExport = settings.auditExport ?? undefined));
      SettingsStore.open({ dataDir, seal }).store.updateSettings(settings);
    }
    const c = spawn(NODE, [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--no-open'], { stdio: ['ignore', 'pipe', 'pipe'], env: ENV });
    child = c;
    process.once('exit', killNow);
    c.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8192)));
    const uiUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`countersign serve did not start in 15 s: ${stderr}`)), 15_000);
      createInterface({ input: c.stdout }).on('line', (line) => {
        const m = /^Countersign UI: (\S+)$/.exec(line);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      c.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`countersign serve exited with ${code}: ${stderr}`));
      });
    });
    return {
      dataDir,
      baseUrl: new URL(uiUrl).origin,
      mcpToken: readFileSync(join(dataDir, 'mcp-token'), 'utf8').trim(),
      pid: c.pid,
      stderr: () => stderr,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
