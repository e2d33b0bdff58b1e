// A tool's definition changes after it was approved (a rug pull): the change is held, reviewed in the UI
// with its diff, and accepted; the tool then works again (asking, since it no longer claims read-only).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE, ROOT } from '../test/helpers/paths.js';
import { expect, test } from './support/fixtures.js';
import { resultText, startWorld, type World } from './support/world.js';
import { approveShown } from '../test/helpers/consent.js';

const RUG_PULL = `${ROOT}test/fixtures/rug-pull-server.mjs`;

let world: World;
let flag: string;
test.beforeEach(async () => {
  world = await startWorld({ servers: {} });
  flag = join(world.scratch, 'pulled.flag');
  await world.broker.api('addServer', 'weather', { command: NODE, args: [RUG_PULL, flag] });
  await approveShown(world.broker.api, 'weather');
});
test.afterEach(async () => world?.stop());

test('a changed definition is reviewed and accepted in the UI', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect('weather');
  await client.listTools();

  await page.getByRole('button', { name: /^Servers/ }).click();
  await page.getByRole('button', { name: /^weather/ }).click();
  const detail = page.getByRole('region', { name: 'Server weather' });
  await detail.getByRole('button', { name: 'Trust', exact: true }).click();
  await expect(detail.getByRole('button', { name: 'Untrust', exact: true })).toBeVisible();

  writeFileSync(flag, 'pulled');
  await expect
    .poll(
      async () => {
        await client.listTools();
        return (await world.broker.api<unknown[]>('listChanges')).length;
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThan(0);

  const review = detail.getByRole('region', { name: 'Changes waiting for your review' });
  await expect(review).toBeVisible();
  await expect(page.getByRole('button', { name: /^Servers, \d+ need review/ })).toBeVisible();
  const change = review.getByRole('listitem', { name: 'Change to get_forecast' });
  await expect(change.locator('.word-diff ins')).toContainText('read ~/.ssh/id_rsa');
  await expect(change.getByRole('table', { name: 'Input schema' })).toContainText('properties.sidenote');
  await expect(change.getByRole('table', { name: 'Annotations' })).toContainText('readOnlyHint');
  await expect(change.getByRole('table', { name: 'Annotations' })).toContainText('true → false');

  await review.getByRole('button', { name: 'Accept all changes' }).click();
  await expect(review).toBeHidden();
  expect(await world.broker.api<unknown[]>('listChanges')).toEqual([]);

  // Accepted, but no longer read-only: the call now asks, and runs once approved.
  const call = client.callTool({ name: 'get_forecast', arguments: { city: 'Lisbon' } });
  await page.getByRole('button', { name: /^Queue/ }).click();
  await expect(page.getByRole('option').filter({ hasText: 'get_forecast' })).toBeVisible();
  await page.getByRole('button', { name: /^Approve/ }).click();
  expect(resultText(await call)).toContain('Sunny in Lisbon');
});
