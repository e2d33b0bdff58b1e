// Approving a held call in the UI lets it run: the file is written and the client gets the result.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures';
import { resultText, startWorld, type World } from './support/world';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.txt': 'first line\n' } });
});
test.afterEach(async () => world.stop());

test('approve: the held call runs and the queue empties', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const target = join(world.scratch, 'created.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'written after approval\n' } });

  const card = page.getByRole('option').filter({ hasText: 'write_file' });
  await expect(card).toBeVisible();
  await expect(card).toContainText('fs');
  await expect(card).toContainText('Untrusted');
  const detail = page.getByRole('region', { name: 'Call detail' });
  await expect(detail.getByRole('heading', { name: 'write_file' })).toBeVisible();
  await expect(detail).toContainText('May change or delete data');
  expect(existsSync(target)).toBe(false);

  await detail.getByRole('button', { name: /^Approve/ }).click();
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(resultText(result)).toContain('Successfully wrote');
  expect(readFileSync(target, 'utf8')).toBe('written after approval\n');
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeFocused();
});
