// Adding a server in the UI, consenting to its exact command, and removing it.
import { NODE, ROOT } from '../test/helpers/paths.js';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld();
});
test.afterEach(async () => world?.stop());

test('add a server with the form, approve its command, remove it', async ({ page }) => {
  await world.openUi(page);
  await page.getByRole('button', { name: /^Servers/ }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const form = page.getByRole('form', { name: 'Add a server' });
  await form.getByLabel('Name', { exact: true }).fill('time');
  await form.getByLabel('Command', { exact: true }).fill(NODE);
  await form.getByLabel('Arguments, one per line').fill(`${ROOT}test/fixtures/fixture-server.mjs\ncounter`);
  await form.getByLabel(/Environment/).fill('API_TOKEN=do-not-show-me');
  await form.getByRole('button', { name: 'Add server' }).click();

  const detail = page.getByRole('region', { name: 'Server time' });
  await expect(detail).toBeVisible();
  const argv = detail.getByRole('list', { name: 'Command line, one argument per item' }).getByRole('listitem');
  await expect(argv).toHaveText([`0${NODE}`, `1${ROOT}test/fixtures/fixture-server.mjs`, '2counter']);
  await expect(detail).toContainText('API_TOKEN');
  await expect(detail).not.toContainText('do-not-show-me');

  // A new server's command needs consent before it first runs.
  await expect(detail.getByText('Needs your consent to start')).toBeVisible();
  await detail.getByRole('button', { name: 'Approve command' }).click();
  await expect(detail.getByRole('button', { name: 'Approve command' })).toBeHidden();
  await expect(detail).toContainText('Approved by you');

  await detail.getByRole('button', { name: 'Remove server…' }).click();
  await detail.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(page.getByRole('button', { name: /^time/ })).toBeHidden();
  expect((await world.broker.api<Array<{ name: string }>>('listServers')).map((s) => s.name)).not.toContain('time');
});

test('with no servers, the queue teaches how to add and import one', async ({ page }) => {
  await world.broker.api('removeServer', 'fs');
  await world.openUi(page);
  await expect(page.getByRole('heading', { name: 'Nothing to approve yet' })).toBeVisible();
  await expect(page.getByLabel('Add server command')).toHaveText('countersign servers add <name> -- <command> [args…]');
  await page.getByLabel(/Paste an mcpServers JSON object/).fill(JSON.stringify({ mcpServers: { mem: { command: NODE, args: ['x.js'] } } }));
  await page.getByRole('button', { name: 'Import servers' }).click();
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();
});
