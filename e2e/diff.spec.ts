// Previews: overwriting an existing file shows a line diff against the file on disk; an edit_file call
// shows one diff per edit.
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'config.txt': `${lines(30).join('\n')}\n` } });
});
test.afterEach(async () => world?.stop());

test('overwriting an existing file shows a diff with the right lines', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const next = lines(30)
    .filter((l) => l !== 'line 20')
    .map((l) => (l === 'line 7' ? 'line 7 changed' : l));
  next.push('line 31');
  const call = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'config.txt'), content: `${next.join('\n')}\n` } });

  const preview = page.getByRole('region', { name: 'Preview' });
  await expect(preview).toContainText('Overwrites an existing file');
  const diff = preview.getByRole('region', { name: 'Changes from Current file to Proposed' });
  await expect(diff).toBeVisible();
  await expect(preview).toContainText('+2 added');
  await expect(preview).toContainText('−2 removed');
  await expect(diff.locator('[data-kind="del"] .dl-text')).toHaveText(['removed: line 7', 'removed: line 20']);
  await expect(diff.locator('[data-kind="add"] .dl-text')).toHaveText(['added: line 7 changed', 'added: line 31']);
  // Unchanged stretches are folded, not dropped.
  await expect(diff.getByRole('button', { name: /unchanged lines/ }).first()).toBeVisible();

  await page.getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
});

test('an edit_file call shows a diff per edit', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const call = client.callTool({
    name: 'edit_file',
    arguments: {
      path: join(world.scratch, 'config.txt'),
      edits: [
        { oldText: 'line 3', newText: 'line three' },
        { oldText: 'line 9\nline 10', newText: 'line 9\nline 9½\nline 10' },
      ],
    },
  });
  const preview = page.getByRole('region', { name: 'Preview' });
  await expect(preview.getByRole('heading', { name: 'Edit 1 of 2' })).toBeVisible();
  await expect(preview.getByRole('heading', { name: 'Edit 2 of 2' })).toBeVisible();
  const diffs = preview.getByRole('region', { name: 'Changes from Old text to New text' });
  await expect(diffs).toHaveCount(2);
  await expect(diffs.nth(0).locator('[data-kind="del"] .dl-text')).toHaveText(['removed: line 3']);
  await expect(diffs.nth(0).locator('[data-kind="add"] .dl-text')).toHaveText(['added: line three']);
  await expect(diffs.nth(1).locator('[data-kind="add"] .dl-text')).toHaveText(['added: line 9½']);

  await page.getByRole('button', { name: /^Deny/ }).click();
  expect((await call).isError).toBe(true);
});
