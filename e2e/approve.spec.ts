// Approving a held call in the UI lets it run: the file is written and the client gets the result.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { CLI, NODE } from '../test/helpers/paths.js';
import { resultText, startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.txt': 'first line\n' } });
});
test.afterEach(async () => world?.stop());

test('approve: the held call runs and the queue empties', async ({ page }) => {
  await world.openUi(page);
  // The token is read from the fragment, then dropped from the visible address.
  expect(page.url()).not.toContain('token');
  const client = await world.connect();
  const target = join(world.scratch, 'created.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'written after approval\n' } });

  const card = page.getByRole('option').filter({ hasText: 'write_file' });
  await expect(card).toBeVisible();
  await expect(card).toContainText('fs');
  await expect(card).toContainText('Untrusted');
  const detail = page.getByRole('region', { name: 'Call detail' });
  await expect(detail.getByRole('heading', { name: 'write_file' })).toBeVisible();
  await expect(detail).toContainText('Creates created.txt (23 B)');
  expect(existsSync(target)).toBe(false);

  await detail.getByRole('button', { name: /^Approve/ }).click();
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(resultText(result)).toContain('Successfully wrote');
  expect(readFileSync(target, 'utf8')).toBe('written after approval\n');
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeFocused();
  // The empty queue teaches the exact client entry: an absolute command, never `npx countersign`.
  const entry = JSON.parse((await page.getByLabel('Client entry').textContent()) ?? '') as Record<string, { command: string; args: string[] }>;
  expect(entry).toEqual({ fs: { command: NODE, args: [CLI, 'connect', 'fs', '--data-dir', world.broker.dataDir] } });
  await expect(page.locator('main')).not.toContainText('npx countersign');
});

test('keyboard: a approves, focus moves to the next call, d denies', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const first = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'a.txt'), content: 'a\n' } });
  await expect(page.getByRole('option')).toHaveCount(1);
  const second = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'b.txt'), content: 'b\n' } });
  await expect(page.getByRole('option')).toHaveCount(2);

  await page.getByRole('option').first().focus();
  await page.keyboard.press('a');
  expect((await first).isError).toBeFalsy();
  await expect(page.getByRole('option')).toHaveCount(1);
  await expect(page.getByRole('option').first()).toBeFocused();
  await expect(page.getByRole('option').first()).toContainText('write_file');

  await page.keyboard.press('d');
  const denied = await second;
  expect(denied.isError).toBe(true);
  expect(existsSync(join(world.scratch, 'b.txt'))).toBe(false);
  expect(readFileSync(join(world.scratch, 'a.txt'), 'utf8')).toBe('a\n');
});
