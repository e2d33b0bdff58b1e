// A scoped rule made on a card in the real UI: "files under src/ for an hour" lets the next write under
// src/ run without asking, a write elsewhere still asks, and Settings lists the rule in plain words.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.txt': 'first\n' }, trusted: ['fs'] });
  mkdirSync(join(world.scratch, 'src'));
});
test.afterEach(async () => world?.stop());

test('allow with a rule: files under a folder, for an hour', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const src = join(world.scratch, 'src');
  const first = client.callTool({ name: 'write_file', arguments: { path: join(src, 'a.txt'), content: 'a\n' } });

  const detail = page.getByRole('region', { name: 'Call detail' });
  await expect(detail.getByRole('heading', { name: 'write_file' })).toBeVisible();
  await expect(detail).toContainText('Creates a.txt (2 B)');
  await detail.getByRole('button', { name: 'Allow with a rule…' }).click();
  const maker = detail.getByRole('group', { name: 'Allow with a rule' });
  await expect(maker.getByLabel('Calls with')).toHaveValue(`under:${src}`);
  await maker.getByLabel('For').selectOption({ label: '1 hour' });
  await maker.getByRole('button', { name: 'Allow with this rule' }).click();
  expect((await first).isError).toBeFalsy();

  // Covered: runs at once, no card.
  expect((await client.callTool({ name: 'write_file', arguments: { path: join(src, 'b.txt'), content: 'b\n' } })).isError).toBeFalsy();
  expect(readFileSync(join(src, 'b.txt'), 'utf8')).toBe('b\n');

  // Not covered: the notes file outside src/ asks.
  const outside = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'notes.txt'), content: 'changed\n' } });
  await expect(detail).toContainText('Overwrites notes.txt (6 B → 8 B)');
  await detail.getByRole('button', { name: /^Deny/ }).click();
  expect((await outside).isError).toBe(true);
  expect(existsSync(join(world.scratch, 'notes.txt')) && readFileSync(join(world.scratch, 'notes.txt'), 'utf8')).toBe('first\n');

  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('button', { name: /Settings/ })
    .click();
  await expect(page.getByText(new RegExp(`Allow write_file on 'fs': files under ${src.replace(/[/.]/g, '\\$&')}, until `))).toBeVisible();
});
