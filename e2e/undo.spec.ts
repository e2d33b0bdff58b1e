// Undo from the browser UI, against a real `countersign serve`, the real server-filesystem and a real
// MCP client: an approved write_file undone from Activity puts the old content back on disk; a session
// revert puts back several files; a file changed after the call asks for "Restore anyway" first. The
// card says "Undo available" before the person decides.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.md': 'what I wrote\n', 'todo.md': '- buy milk\n' } });
});
test.afterEach(async () => world?.stop());

const detail = (page: Page) => page.getByRole('region', { name: 'Call detail' });

/** The agent calls a tool; the person approves it in the queue; resolves with the tool's result. */
async function approve(page: Page, client: Client, name: string, args: Record<string, unknown>, cardText = name): Promise<void> {
  const call = client.callTool({ name, arguments: args });
  const card = page.getByRole('option').filter({ hasText: cardText });
  await expect(card).toBeVisible();
  await expect(card.locator('.undo-note')).toHaveText('Undo available');
  await card.click();
  await detail(page)
    .getByRole('button', { name: /^Approve/ })
    .click();
  const result = await call;
  expect(result.isError).toBeFalsy();
}

async function openActivity(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: /^Activity/ }).click();
  return page.getByRole('list', { name: 'Audit log' });
}

/** The newest Activity entry of a call to `tool` that can be undone, by its seq (the list grows above it). */
async function undoableEntry(log: Locator, tool: string): Promise<Locator> {
  const button = log
    .getByRole('listitem')
    .filter({ hasText: tool })
    .getByRole('button', { name: /^Undo what #\d+ changed$/ })
    .first();
  const name = (await button.getAttribute('aria-label'))!;
  return log.locator(`#log-${/#(\d+)/.exec(name)![1]}`);
}

test('an approved write_file, undone from Activity, has its old content back on disk', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const notes = join(world.scratch, 'notes.md');
  await approve(page, client, 'write_file', { path: notes, content: 'the agent rewrote this\n' });
  expect(readFileSync(notes, 'utf8')).toBe('the agent rewrote this\n');

  const log = await openActivity(page);
  const entry = await undoableEntry(log, 'write_file');
  await entry.getByRole('button', { name: /^Undo what #\d+ changed$/ }).click();
  const review = page.getByRole('region', { name: /^Undo what #\d+ changed: write_file on fs$/ });
  const file = review.getByRole('listitem').filter({ hasText: notes });
  await expect(file).toContainText('restored to its content from before the call');
  await expect(file.getByRole('region', { name: 'Changes from Now to After undo' })).toContainText('added: what I wrote');
  await expect(review.locator('.undo-hash code')).toHaveText(/^[0-9a-f]{16}$/);
  expect(readFileSync(notes, 'utf8')).toBe('the agent rewrote this\n'); // nothing before the confirm

  await review.getByRole('button', { name: 'Undo 1 file' }).click();
  await expect(review).toContainText('Undone: 1 file put back.');
  expect(readFileSync(notes, 'utf8')).toBe('what I wrote\n');
  // The call says it was undone, with a link to the undo's own entry (which can itself be undone).
  await review.getByRole('button', { name: 'Close' }).click();
  await expect(entry.locator('.log-undo')).toHaveText(/^Undone by #\d+$/);
  const undoEntry = log.getByRole('listitem').filter({ has: page.locator('.badge', { hasText: /^Undo$/ }) });
  await expect(undoEntry.getByRole('button', { name: 'Undo this undo: put back what it replaced' })).toBeVisible();
  await entry.getByRole('link', { name: /^by #\d+$/ }).click();
  await expect(undoEntry.locator('.log-summary')).toBeFocused();
  await expect(undoEntry).toContainText('Undid 1 call(s): 1 file(s) put back.');

  // Undoing the undo puts back what it replaced: the agent's version.
  await undoEntry.getByRole('button', { name: 'Undo this undo: put back what it replaced' }).click();
  const again = page.getByRole('region', { name: /^Undo what #\d+ changed: write_file on fs$/ });
  await expect(again.getByRole('listitem').filter({ hasText: notes })).toContainText('restored to its content from before the call');
  await again.getByRole('button', { name: 'Undo 1 file' }).click();
  await expect(again).toContainText('Undone: 1 file put back.');
  expect(readFileSync(notes, 'utf8')).toBe('the agent rewrote this\n');
});

test('a session revert puts back every file the agent changed, newest change first', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const notes = join(world.scratch, 'notes.md');
  const todo = join(world.scratch, 'todo.md');
  const created = join(world.scratch, 'plan.md');
  await approve(page, client, 'write_file', { path: notes, content: 'first rewrite\n' }, 'write_file');
  await approve(page, client, 'edit_file', { path: todo, edits: [{ oldText: '- buy milk', newText: '- buy oat milk' }] }, 'edit_file');
  await approve(page, client, 'write_file', { path: notes, content: 'second rewrite\n' }, 'write_file');
  await approve(page, client, 'write_file', { path: created, content: 'a plan\n' }, 'write_file');
  expect(readFileSync(todo, 'utf8')).toBe('- buy oat milk\n');

  await openActivity(page);
  await page.getByRole('button', { name: 'Revert a session…' }).click();
  const form = page.getByRole('form', { name: 'Revert a session' });
  await expect(form.getByLabel('Session').locator('option')).toHaveText([/· 4 changes ·/]);
  await form.getByRole('button', { name: 'Preview the revert' }).click();
  const review = page.getByRole('region', { name: /^Revert everything .* changed in this session$/ });
  const files = review.getByRole('list', { name: 'Files undo puts back' }).getByRole('listitem');
  await expect(files).toHaveCount(3);
  await expect(files.filter({ hasText: notes })).toContainText('restored to its content from before the call');
  await expect(files.filter({ hasText: todo })).toContainText('restored to its content from before the call');
  await expect(files.filter({ hasText: created })).toContainText('removed again (it did not exist before the call)');
  await expect(review).toContainText('Undoes 4 calls, newest first');

  await review.getByRole('button', { name: 'Undo 3 files' }).click();
  await expect(review).toContainText('Undone: 3 files put back.');
  expect(readFileSync(notes, 'utf8')).toBe('what I wrote\n');
  expect(readFileSync(todo, 'utf8')).toBe('- buy milk\n');
  expect(existsSync(created)).toBe(false);
});

test('a file changed after the call: the conflict is shown with three versions and asks for Restore anyway', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const notes = join(world.scratch, 'notes.md');
  await approve(page, client, 'write_file', { path: notes, content: 'the agent rewrote this\n' });
  const log = await openActivity(page);
  const entry = await undoableEntry(log, 'write_file');
  // Offered once the call's end is recorded; then the person keeps editing the file.
  const undo = entry.getByRole('button', { name: /^Undo what #\d+ changed$/ });
  await expect(undo).toBeVisible();
  writeFileSync(notes, 'the agent rewrote this\nand I added a line\n');

  await undo.click();
  const review = page.getByRole('region', { name: /^Undo what #\d+ changed/ });
  await expect(review.getByRole('alert')).toContainText('1 file changed since the call.');
  await expect(review.getByRole('alert')).toContainText('Undo would overwrite those edits');
  const three = review.getByRole('list', { name: 'Files undo puts back' }).locator('dl.undo-three');
  await expect(three.locator('dt')).toHaveText(['Before the call', 'After the call', 'Now']);
  await expect(review.getByRole('region', { name: 'Changes from After the call to Now' })).toContainText('added: and I added a line');
  await expect(review.getByRole('button', { name: /^Undo \d+ file/ })).toHaveCount(0);
  expect(readFileSync(notes, 'utf8')).toBe('the agent rewrote this\nand I added a line\n');

  await review.getByRole('button', { name: 'Restore anyway' }).click();
  await expect(review).toContainText('Undone: 1 file put back.');
  expect(readFileSync(notes, 'utf8')).toBe('what I wrote\n');
});
