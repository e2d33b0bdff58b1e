// The Clients view against a real `countersign serve` whose HOME holds a Claude Desktop config and a
// commented VS Code mcp.json: wrap after reviewing the diff, see the file rewritten, unwrap to the bytes.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FILESYSTEM_SERVER, NODE } from '../test/helpers/paths.js';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
let home: string;
let desktop: string;
let vscode: string;

test.beforeEach(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'cs-e2e-home-')));
  desktop = join(home, '.config/Claude/claude_desktop_config.json');
  vscode = join(home, '.config/Code/User/mcp.json');
  mkdirSync(dirname(desktop), { recursive: true });
  mkdirSync(dirname(vscode), { recursive: true });
  writeFileSync(
    desktop,
    JSON.stringify({ mcpServers: { notes: { command: NODE, args: [FILESYSTEM_SERVER, home], env: { NOTES_TOKEN: 'e2e-secret-value' } } } }, null, 2) + '\n',
  );
  writeFileSync(
    vscode,
    `{\n\t// my editor's servers\n\t"servers": {\n\t\t"notes": { "type": "stdio", "command": ${JSON.stringify(NODE)}, "args": [${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(home)}], "env": { "NOTES_TOKEN": "e2e-secret-value" } },\n\t},\n}\n`,
  );
  world = await startWorld({ env: { HOME: home, XDG_CONFIG_HOME: '' } });
});
test.afterEach(async () => {
  await world?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

test('wrap Claude Desktop after reviewing the diff, then unwrap it back to the exact bytes', async ({ page }) => {
  const original = readFileSync(desktop, 'utf8');
  await world.openUi(page);
  await page.getByRole('button', { name: /^Clients/ }).click();
  const card = page.getByRole('region', { name: 'Claude Desktop' });
  await expect(card.getByText('1 of 1 not protected')).toBeVisible();
  await card.getByRole('button', { name: 'Wrap Claude Desktop' }).click();

  const review = card.getByRole('region', { name: /^Review: protect Claude Desktop/ });
  await expect(review).toContainText('notes: added to Countersign as “notes”, untrusted');
  const diff = review.getByRole('region', { name: `Changes to ${desktop}` });
  await expect(diff).toContainText('"connect"');
  await expect(diff).not.toContainText('e2e-secret-value');
  expect(readFileSync(desktop, 'utf8')).toBe(original);

  await review.getByRole('button', { name: 'Confirm and write' }).click();
  await expect(card.getByText('1 of 1 through Countersign')).toBeVisible();
  const wrapped = JSON.parse(readFileSync(desktop, 'utf8')) as { mcpServers: { notes: { command: string; args: string[]; env?: unknown } } };
  expect(wrapped.mcpServers.notes.command).toBe(NODE);
  expect(wrapped.mcpServers.notes.args.slice(1)).toEqual(['connect', 'notes', '--client', 'claude-desktop', '--data-dir', world.broker.dataDir]);
  expect(wrapped.mcpServers.notes.env).toBeUndefined();
  const servers = await world.broker.api<Array<{ name: string; trusted: boolean; status: string }>>('listServers');
  expect(servers.find((s) => s.name === 'notes')).toMatchObject({ trusted: false, status: 'needs-consent' });

  await card.getByRole('button', { name: 'Unwrap Claude Desktop' }).click();
  const back = card.getByRole('region', { name: /^Review: put Claude Desktop/ });
  await expect(back).toContainText('back to its exact bytes from before the wrap');
  await back.getByRole('button', { name: 'Confirm and restore' }).click();
  await expect(card.getByText('1 of 1 not protected')).toBeVisible();
  expect(readFileSync(desktop, 'utf8')).toBe(original);
});

test('the empty queue leads to Clients; a commented VS Code file keeps its comments, and the same server is shared', async ({ page }) => {
  await world.openUi(page);
  const pointer = page.getByRole('region', { name: 'Protect the clients you already use' });
  await expect(pointer).toContainText('Found Claude Desktop, VS Code: 2 servers start without Countersign.');
  await pointer.getByRole('button', { name: 'Open Clients' }).click();
  await expect(page.getByRole('heading', { name: 'Clients', level: 1 })).toBeVisible();

  for (const name of ['Claude Desktop', 'VS Code']) {
    const card = page.getByRole('region', { name });
    await card.getByRole('button', { name: `Wrap ${name}` }).click();
    await card.getByRole('button', { name: 'Confirm and write' }).click();
    await expect(card.getByText('1 of 1 through Countersign')).toBeVisible();
  }
  const text = readFileSync(vscode, 'utf8');
  expect(text).toContain("// my editor's servers");
  expect(text).toContain('"type": "stdio"');
  expect(text).not.toContain('e2e-secret-value');
  // One launch, one Countersign server: both clients start "notes".
  const names = (await world.broker.api<Array<{ name: string }>>('listServers')).map((s) => s.name);
  expect(names.sort()).toEqual(['fs', 'notes']);
});

test("the Checkup shows doctor's findings from the real broker, and checks again after a wrap", async ({ page }) => {
  await world.openUi(page);
  await page.getByRole('button', { name: /^Clients/ }).click();
  const checkup = page.getByRole('region', { name: 'Checkup' });
  const findings = checkup.getByRole('list', { name: 'Findings' });
  await expect(findings).toContainText(`Claude Desktop (${desktop}) starts 'notes' without Countersign`);
  await expect(findings).toContainText('Fix: countersign wrap claude-desktop');
  await checkup.getByText(/^What is fine/).click();
  await expect(checkup).toContainText(`A broker runs for ${world.broker.dataDir}`);

  const card = page.getByRole('region', { name: 'Claude Desktop' });
  await card.getByRole('button', { name: 'Wrap Claude Desktop' }).click();
  await card.getByRole('button', { name: 'Confirm and write' }).click();
  await expect(card.getByText('1 of 1 through Countersign')).toBeVisible();
  await checkup.getByRole('button', { name: 'Check again' }).click();
  await expect(checkup).toContainText("'notes' goes through Countersign, and the command exists");
  await expect(findings).not.toContainText(`Claude Desktop (${desktop}) starts 'notes' without Countersign`);
});
