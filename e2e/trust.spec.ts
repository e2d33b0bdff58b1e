// Trusting a server in the UI: its next read-only call runs without a prompt, and shows in Activity
// (which exports as JSONL).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { resultText, startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'readme.txt': 'hello from the scratch folder\n' } });
});
test.afterEach(async () => world?.stop());

test('trusting a server lets its read-only call run without a prompt, logged in Activity', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  await client.listTools();

  await page.getByRole('button', { name: /^Servers/ }).click();
  const detail = page.getByRole('region', { name: 'Server fs' });
  await expect(detail.getByText('Untrusted', { exact: true })).toBeVisible();
  await detail.getByRole('button', { name: 'Trust', exact: true }).click();
  await expect(detail.getByRole('button', { name: 'Untrust', exact: true })).toBeVisible();
  await expect(detail.getByText('Trusted', { exact: true })).toBeVisible();

  const result = await client.callTool({ name: 'read_text_file', arguments: { path: join(world.scratch, 'readme.txt') } });
  expect(result.isError).toBeFalsy();
  expect(resultText(result)).toContain('hello from the scratch folder');
  expect(await world.broker.api('listPending')).toEqual([]);

  await page.getByRole('button', { name: /^Activity/ }).click();
  const entry = page.getByRole('list', { name: 'Audit log' }).getByRole('listitem').filter({ hasText: 'read_text_file' });
  await expect(entry).toContainText('Allowed');
  await expect(entry).toContainText('by the policy');
  await entry.getByRole('button').first().click();
  await expect(entry).toContainText('readme.txt');

  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSONL' }).click();
  const file = await (await download).path();
  const rows = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { tool: string });
  expect(rows.some((r) => r.tool === 'read_text_file')).toBe(true);
});
