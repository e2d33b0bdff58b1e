// The real desktop app under Playwright's _electron: a temp data dir, a real MCP client through
// `countersign connect`, server-filesystem, and a click on Approve in the app's window. Runs wherever
// the Electron binary is installed; elsewhere it reports itself skipped (never downloads Electron).
// Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import type { CountersignApi } from '../shared/api.js';
import { configure } from '../test/helpers/broker-harness.js';
import { CLI, FILESYSTEM_SERVER, NODE } from '../test/helpers/paths.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MAIN = join(ROOT, 'dist', 'electron', 'main.mjs');
const ENTRY = join(ROOT, 'dist', 'electron', 'entry.mjs');

/** The binary electron's index.js would run, found without its download-on-require side effect. */
function electronBinary(): string | undefined {
  const pkg = join(ROOT, 'node_modules', 'electron');
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkg, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

const binary = electronBinary();
const hasElectronBinary = binary !== undefined;

type Win = Window & { countersign: CountersignApi; require?: unknown; process?: unknown; __inline?: number };

test.describe('desktop app', () => {
  test.skip(
    !hasElectronBinary,
    'Electron binary not installed: node_modules/electron has no dist/ (its install script downloads it, which needs the network). `node bin/countersign.mjs serve` runs the same UI in a browser.',
  );

  let dataDir: string;
  let scratch: string;
  let app: ElectronApplication | undefined;
  let client: Client | undefined;

  test.beforeEach(() => {
    dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-e2e-app-')));
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'cs-e2e-app-files-')));
    configure(dataDir, { fs: { command: NODE, args: [FILESYSTEM_SERVER, scratch] } });
  });

  test.afterEach(async () => {
    await client?.close().catch(() => {});
    await app?.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  });

  async function launch(): Promise<Page> {
    app = await electron.launch({
      executablePath: binary!,
      args: [MAIN, `--data-dir=${dataDir}`],
      env: { ...process.env, COUNTERSIGN_HOME: '' },
      timeout: 30_000,
    });
    const page = await app.firstWindow();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(problems).toEqual([]);
    return page;
  }

  test('approves a call from a real MCP client', async () => {
    const page = await launch();
    expect(page.url()).toBe('app://countersign/index.html');
    expect(await app!.evaluate(({ app: electronApp }) => electronApp.getPath('userData'))).toBe(dataDir);

    // Locked down: no Node in the page, only the typed API, and no inline script runs.
    const page0 = await page.evaluate(() => {
      const w = window as unknown as Win;
      const script = document.createElement('script');
      script.textContent = 'window.__inline = 1';
      document.head.append(script);
      return { require: typeof w.require, process: typeof w.process, inline: w.__inline, api: Object.keys(w.countersign).sort() };
    });
    expect(page0).toMatchObject({ require: 'undefined', process: 'undefined', inline: undefined });
    expect(page0.api).toContain('decide');
    expect(page0.api).not.toContain('invoke');

    client = new Client({ name: 'e2e-desktop', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'connect', 'fs', '--data-dir', dataDir], stderr: 'pipe' }));
    const target = join(scratch, 'from-desktop.txt');
    const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'approved in the desktop app\n' } });

    const detail = page.getByRole('region', { name: 'Call detail' });
    await expect(detail.getByRole('heading', { name: 'write_file' })).toBeVisible();
    expect(existsSync(target)).toBe(false);
    const [pending] = await page.evaluate(() => (window as unknown as Win).countersign.listPending());
    await detail.getByRole('button', { name: /^Approve/ }).click();

    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(target, 'utf8')).toBe('approved in the desktop app\n');
    // Deciding it again is refused by the broker, through the same bridge.
    const again = await page.evaluate((id) => (window as unknown as Win).countersign.decide(id, { kind: 'allow-once' }), pending!.id);
    expect(again).toEqual({ ok: false, error: 'not-pending' });
    // Bad arguments never reach the broker.
    const bad = await page.evaluate(() =>
      (window as unknown as Win).countersign.setPaused('yes' as unknown as boolean).then(
        () => 'accepted',
        (e: Error) => e.message,
      ),
    );
    expect(bad).toMatch(/invalid arguments for setPaused/);
  });

  test('while paused, every call is denied with a result that says so', async () => {
    const page = await launch();
    await page.evaluate(() => (window as unknown as Win).countersign.setPaused(true));
    client = new Client({ name: 'e2e-desktop', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: NODE, args: [CLI, 'connect', 'fs', '--data-dir', dataDir], stderr: 'pipe' }));
    const result = await client.callTool({ name: 'write_file', arguments: { path: join(scratch, 'never.txt'), content: 'x' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/paused/i);
    expect(existsSync(join(scratch, 'never.txt'))).toBe(false);
  });

  test('a page asking to add and run a command gets a native dialog; only its confirm acts', async () => {
    const page = await launch();
    // Stand in for the person at the native dialog (its buttons cannot be clicked from here): record what
    // it shows and answer Cancel, then Confirm.
    await app!.evaluate(({ dialog }) => {
      const g = globalThis as unknown as { consent: { shown: Array<{ message?: string; detail?: string }>; response: number } };
      g.consent = { shown: [], response: 0 };
      dialog.showMessageBox = (async (...args: unknown[]) => {
        g.consent.shown.push(args.at(-1) as { message?: string; detail?: string });
        return { response: g.consent.response, checkboxChecked: false };
      }) as typeof dialog.showMessageBox;
    });
    const marker = join(scratch, 'ran');
    const shell = { command: '/bin/sh', args: ['-c', `touch ${marker}`] };
    const add = () =>
      page.evaluate(
        (config) =>
          (window as unknown as Win).countersign.addServer('x', config).then(
            () => 'added',
            (e: Error) => e.message,
          ),
        shell,
      );
    expect(await add()).toMatch(/did not confirm/);
    const names = () => page.evaluate(() => (window as unknown as Win).countersign.listServers().then((l) => l.map((s) => s.name)));
    expect(await names()).toEqual(['fs']);
    const shown = await app!.evaluate(() => (globalThis as unknown as { consent: { shown: Array<{ message?: string; detail?: string }> } }).consent.shown);
    expect(shown[0]!.message).toBe("Add the server 'x'?");
    expect(shown[0]!.detail).toContain(`  [2] touch ${marker}`);

    await app!.evaluate(() => void ((globalThis as unknown as { consent: { response: number } }).consent.response = 1));
    expect(await add()).toBe('added');
    expect(await names()).toEqual(['fs', 'x']);
    // Added, not approved: nothing ran.
    const added = await page.evaluate(() => (window as unknown as Win).countersign.listServers().then((l) => l.find((s) => s.name === 'x')!.launch));
    expect(added.approved).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  test('quitting stops the broker and frees the data dir', async () => {
    await launch();
    expect(existsSync(join(dataDir, 'broker.lock'))).toBe(true);
    await app!.close();
    app = undefined;
    expect(existsSync(join(dataDir, 'broker.lock'))).toBe(false);
  });

  test("the app's executable with --cli runs the command line and exits, and relays a client with no window", async () => {
    // What the installed app's client entries and `countersign` launcher run (no Node on PATH needed).
    // Headless on Linux, as appCommand() writes it. The app's window from another test is not running.
    const cliArgs = (...args: string[]) => [
      ENTRY,
      ...(process.platform === 'linux' ? ['--ozone-platform=headless', '--disable-gpu'] : []),
      '--cli',
      ...args,
      '--data-dir',
      dataDir,
    ];
    const env = { ...process.env, COUNTERSIGN_HOME: '' };
    const listed = spawnSync(binary!, cliArgs('servers', 'list'), { env, encoding: 'utf8', timeout: 30_000 });
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('fs');

    const page = await launch();
    client = new Client({ name: 'e2e-desktop-cli', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: binary!, args: cliArgs('connect', 'fs', '--client', 'e2e'), env, stderr: 'pipe' }));
    const call = client.callTool({ name: 'write_file', arguments: { path: join(scratch, 'via-app-cli.txt'), content: 'x' } });
    await page
      .getByRole('region', { name: 'Call detail' })
      .getByRole('button', { name: /^Approve/ })
      .click();
    expect((await call).isError).toBeFalsy();
    expect(readFileSync(join(scratch, 'via-app-cli.txt'), 'utf8')).toBe('x');
  });
});
