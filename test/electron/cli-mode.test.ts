// The installed app's command line: the built entry (dist/electron/entry.mjs) run under plain Node with
// the fake 'electron', as an MCP client or a person would run the app's executable with --cli. It must
// run the CLI and exit, never becoming the desktop app (no lock, no window, no tray, no 'ready').
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArguments, installedExe } from '../../electron/main/cli-mode.js';
import { configure, makeDataDir, removeDir, startServe, type TestBroker } from '../helpers/broker-harness.js';
import { EVERYTHING_SERVER, NODE } from '../helpers/paths.js';
import { installFakeApp } from './build-once.js';

describe('cliArguments', () => {
  it('takes --cli among the leading switches, and what follows it', () => {
    expect(cliArguments(['/opt/C/countersign', '--cli', 'servers', 'list'], true)).toEqual(['servers', 'list']);
    expect(cliArguments(['/opt/C/countersign', '--ozone-platform=headless', '--disable-gpu', '--cli', 'connect', 'fs'], true)).toEqual(['connect', 'fs']);
    expect(cliArguments(['electron', 'dist/electron/entry.mjs', '--cli', '--help'], false)).toEqual(['--help']);
    expect(cliArguments(['/opt/C/countersign', '--cli'], true)).toEqual([]);
  });

  it('is the desktop app otherwise, whatever later arguments say', () => {
    expect(cliArguments(['/opt/C/countersign'], true)).toBeUndefined();
    expect(cliArguments(['/opt/C/countersign', '--data-dir=/d', '--hidden'], true)).toBeUndefined();
    expect(cliArguments(['/opt/C/countersign', 'file.txt', '--cli'], true)).toBeUndefined();
    expect(cliArguments(['/opt/C/countersign', '--', '--cli'], true)).toBeUndefined();
    // Unpackaged, argv[1] is the entry script, not an argument.
    expect(cliArguments(['electron', '--cli'], false)).toBeUndefined();
  });
});

describe('installedExe', () => {
  it("names an AppImage's own file, not its temporary mount", () => {
    const env = { APPIMAGE: '/home/u/Apps/Countersign.AppImage', APPDIR: '/tmp/.mount_CountXYZ' };
    expect(installedExe('/tmp/.mount_CountXYZ/countersign', env)).toBe('/home/u/Apps/Countersign.AppImage');
  });

  it("ignores AppImage variables leaked from another app's environment", () => {
    const env = { APPIMAGE: '/home/u/Apps/Cursor.AppImage', APPDIR: '/tmp/.mount_CursorABC' };
    expect(installedExe('/opt/Countersign/countersign', env)).toBe('/opt/Countersign/countersign');
    expect(installedExe('/opt/Countersign/countersign', {})).toBe('/opt/Countersign/countersign');
  });
});

describe('the built app with --cli', () => {
  let entry: string;
  let dataDir: string;
  let broker: TestBroker | undefined;
  const record = (): string => path.join(mkdtempSync(path.join(tmpdir(), 'cs-fake-record-')), 'record.json');
  const env = (file: string) => ({ ...process.env, COUNTERSIGN_HOME: '', FAKE_ELECTRON_REAL_EXIT: '1', FAKE_ELECTRON_DOCK: '1', FAKE_ELECTRON_RECORD: file });

  beforeAll(() => {
    entry = path.join(installFakeApp(), 'dist', 'electron', 'entry.mjs');
    dataDir = makeDataDir();
    configure(dataDir, { everything: { command: NODE, args: [EVERYTHING_SERVER] } }, ['everything']);
  }, 120_000);

  afterAll(async () => {
    await broker?.stop();
    removeDir(dataDir);
  });

  it('runs a command and exits with its code, never starting the desktop app', () => {
    const file = record();
    const run = spawnSync(NODE, [entry, '--cli', 'servers', 'list', '--data-dir', dataDir], { env: env(file), encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('everything');
    const did = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(did).toMatchObject({ singleInstanceRequested: false, windows: 0, trays: 0, exitCode: 0, dockHidden: true, readyAsked: false });
    // Chromium's files, should it write any, stay in the data dir like the app's.
    expect(did.paths).toEqual({ userData: dataDir, sessionData: path.join(dataDir, 'chromium') });
  });

  it('reports usage errors with the exit code the Node CLI uses', () => {
    const run = spawnSync(NODE, [entry, '--cli', 'no-such-command'], { env: env(record()), encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(64);
    expect(run.stderr).toContain("unknown command 'no-such-command'");
  });

  it("names the app itself (not a Node) in the commands it shows: connect's advice when no broker runs", () => {
    const empty = makeDataDir();
    try {
      const run = spawnSync(NODE, [entry, '--cli', 'connect', 'fs', '--data-dir', empty], { env: env(record()), encoding: 'utf8', input: '', timeout: 30_000 });
      expect(run.status).toBe(1);
      const headless = process.platform === 'linux' ? ' --ozone-platform=headless --disable-gpu' : '';
      expect(run.stderr).toContain(`start it with \`${NODE} ${entry}${headless} --cli serve --data-dir ${empty}\``);
    } finally {
      removeDir(empty);
    }
  });

  it('relays an MCP session over its stdio: connect from the app, as a client entry runs it', async () => {
    broker = await startServe(dataDir);
    const transport = new StdioClientTransport({
      command: NODE,
      args: [entry, '--cli', 'connect', 'everything', '--client', 'app-test', '--data-dir', dataDir],
      env: env(record()),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-mode-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const result = (await client.callTool({ name: 'echo', arguments: { message: 'through the app' } })) as { content: Array<{ text?: string }> };
      expect(result.content[0]?.text).toBe('Echo: through the app');
      const log = await broker.logWhen({ server: 'everything', tool: 'echo' }, (l) => l.length > 0);
      expect(log[0]).toMatchObject({ decision: 'allow', arguments: { message: 'through the app' } });
    } finally {
      await client.close();
    }
  });

  it('without --cli is the desktop app: it asks for the single-instance lock', () => {
    const file = record();
    // The lock is refused (another instance "runs"), so the app quits at once.
    spawnSync(NODE, [entry, `--data-dir=${dataDir}`], { env: { ...env(file), FAKE_ELECTRON_LOCK: '0' }, encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ singleInstanceRequested: true });
  });
});
