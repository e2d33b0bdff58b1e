// The API token lives in page memory only: it leaves the address bar at once, is never stored, and a
// reload (or a bookmark) gets a page that says where to find the address again.
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld();
});
test.afterEach(async () => world?.stop());

test('the token is dropped from the address, never stored, and a reload asks for the printed address', async ({ page }) => {
  await world.openUi(page);
  expect(page.url()).toBe(`${world.broker.baseUrl}/`);
  const stored = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
  expect(stored).not.toContain(world.broker.apiToken);

  await page.reload();
  await expect(page.getByRole('heading', { name: 'Open Countersign from its address' })).toBeVisible();
});
