// A server whose command waits for the person's consent, started by a client: the queue shows it once as
// "needs your approval to start" however often the client retried, Approve starts it for the client's
// next try (after the person restarts it there), and Activity has the refusals.
import { once } from 'node:events';
import { FIXTURE, NODE } from '../test/helpers/paths.js';
import { initRequest, RawConnect } from '../test/helpers/raw-client.js';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld();
});
test.afterEach(async () => world?.stop());

/** One `countersign connect` as a client runs it, refused: the error its first request gets. */
async function refusedLaunch(dataDir: string): Promise<string> {
  const raw = new RawConnect(dataDir, 'counter', ['--client', 'claude-test']);
  raw.write(`${initRequest('init')}\n`);
  const answer = await raw.next((m) => m.id === 'init');
  await once(raw.child, 'exit');
  return (answer.error as { message: string }).message;
}

test('a refused launch waits once in the queue, Approve starts it, Activity has the refusals', async ({ page }) => {
  // Added without its command approved (as a client's config or a person's hand edit would).
  await world.broker.api('addServer', 'counter', { command: NODE, args: [FIXTURE, 'counter'] });
  for (let i = 0; i < 3; i++) expect(await refusedLaunch(world.broker.dataDir)).toContain('needs your approval to start');

  await world.openUi(page);
  const waiting = page.getByRole('region', { name: 'Servers waiting for your approval to start' });
  const item = waiting.getByRole('listitem').filter({ hasText: 'Needs your approval to start' });
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('counter');
  await expect(item).toContainText('tried to start it 3 times');
  await expect(item).toContainText('claude-test');
  await expect(item.getByRole('list', { name: 'Command line of counter, one argument per item' }).getByRole('listitem')).toHaveText([
    `0${NODE}`,
    `1${FIXTURE}`,
    '2counter',
  ]);
  await expect(item).toContainText('After approving, restart counter in claude-test');

  // Another retry while it waits: still one item (it counts the try).
  await refusedLaunch(world.broker.dataDir);
  await expect(waiting.getByRole('listitem').filter({ hasText: 'Needs your approval to start' })).toHaveCount(1);

  await item.getByRole('button', { name: 'Approve command' }).click();
  await expect(page.getByRole('status').filter({ hasText: "Restart 'counter' in claude-test" })).toBeVisible();
  await expect(waiting).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();

  // The client's next try starts it.
  const client = await world.connect('counter');
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['bump']);

  await page.getByRole('button', { name: /^Activity/ }).click();
  const refusals = page.getByRole('list', { name: 'Audit log' }).getByRole('listitem').filter({ hasText: 'Launch refused' });
  await expect(refusals).toHaveCount(2); // the first at once, the three retries counted in one
  await refusals.first().getByRole('button').first().click();
  await expect(page.getByRole('list', { name: 'Audit log' })).toContainText(/launch refused 3 more times|launch refused: its command line is new or changed/);
});
