// Denying a call in the UI: the file is untouched, and the client gets an error result with the reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { resultText, startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'keep.txt': 'keep me as I am\n' } });
});
test.afterEach(async () => world?.stop());

test('deny: the file stays unchanged and the client sees the denial', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const target = join(world.scratch, 'keep.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'overwritten\n' } });

  const detail = page.getByRole('region', { name: 'Call detail' });
  await expect(detail.getByRole('heading', { name: 'write_file' })).toBeVisible();
  await detail.getByLabel(/Reason for denying/).fill('Not this file, please');
  await detail.getByRole('button', { name: /^Deny/ }).click();

  const result = await call;
  expect(result.isError).toBe(true);
  expect(resultText(result)).toContain('Not this file, please');
  expect(readFileSync(target, 'utf8')).toBe('keep me as I am\n');
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();

  await page.getByRole('button', { name: /^Activity/ }).click();
  const entry = page.getByRole('list', { name: 'Audit log' }).getByRole('listitem').filter({ hasText: 'write_file' });
  await expect(entry).toContainText('Denied');
  await expect(entry).toContainText('by you');
});
