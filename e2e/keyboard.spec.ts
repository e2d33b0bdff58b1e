// The whole flow by keyboard alone, against a real `countersign serve` and a real filesystem server:
// no clicks from page load to the file on disk. A new call takes focus, except from a field being typed in.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/fixtures.js';
import { resultText, startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.txt': 'first line\n' } });
});
test.afterEach(async () => world?.stop());

/** Presses Tab until `target` has focus (a person tabbing through the page), at most `max` times. */
async function tabTo(page: Page, target: Locator, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
  }
  throw new Error(`Tab never reached ${target.toString()}`);
}

test('page load to an approved write on disk, by keyboard only', async ({ page }) => {
  await page.goto(world.uiUrl);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();

  const client = await world.connect();
  const target = join(world.scratch, 'by-keyboard.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'typed, not clicked\n' } });
  const card = page.getByRole('option').filter({ hasText: 'write_file' });
  await expect(card).toBeFocused();

  // The keys are on the buttons, and in their titles.
  const detail = page.getByRole('region', { name: 'Call detail' });
  const approve = detail.getByRole('button', { name: /^Approve/ });
  await expect(approve).toHaveAttribute('title', 'Approve this call (key A)');
  await expect(approve.locator('kbd')).toHaveText('A');
  await expect(detail.getByRole('button', { name: /^Deny/ })).toHaveAttribute('title', 'Deny this call (key D)');

  await page.keyboard.press('Enter');
  await expect(detail.getByRole('heading', { name: 'write_file' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(card).toBeFocused();
  expect(existsSync(target)).toBe(false);

  await page.keyboard.press('a');
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(readFileSync(target, 'utf8')).toBe('typed, not clicked\n');
  await expect(page.getByRole('heading', { name: 'Nothing is waiting for you' })).toBeFocused();
});

test('a new call never takes focus from the deny reason being typed; Escape leaves the field, d denies with it', async ({ page }) => {
  await world.openUi(page);
  const client = await world.connect();
  const first = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'first.txt'), content: '1\n' } });
  const card = page.getByRole('option').filter({ hasText: 'first.txt' });
  await expect(page.getByRole('option')).toHaveCount(1);
  await expect(page.getByRole('option').first()).toBeFocused();

  const reason = page.getByRole('textbox', { name: /Reason for denying/ });
  await tabTo(page, reason);
  await page.keyboard.type('a bad');
  const second = client.callTool({ name: 'read_text_file', arguments: { path: join(world.scratch, 'notes.txt') } });
  await expect(page.getByRole('option')).toHaveCount(2);
  await expect(reason).toBeFocused();
  // Keys typed into the field are text, not shortcuts: "a" and "d" approve or deny nothing.
  await page.keyboard.type(' idea');
  await expect(reason).toHaveValue('a bad idea');
  await expect(page.getByRole('option')).toHaveCount(2);

  await page.keyboard.press('Escape');
  await expect(page.getByRole('option').first()).toBeFocused();
  await expect(page.getByRole('option').first()).toContainText('write_file');
  await page.keyboard.press('d');
  const denied = await first;
  expect(denied.isError).toBe(true);
  expect(resultText(denied)).toContain('a bad idea');
  expect(existsSync(join(world.scratch, 'first.txt'))).toBe(false);
  await expect(card).toHaveCount(0);

  // Focus moved on to the next call.
  await expect(page.getByRole('option').first()).toBeFocused();
  await page.keyboard.press('a');
  expect(resultText(await second)).toContain('first line');
});

test('at 800×600: Enter opens the detail over the list, Escape closes the rule form, then the detail', async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 600 });
  await world.openUi(page);
  const client = await world.connect();
  const call = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'small.txt'), content: 's\n' } });
  const card = page.getByRole('option').first();
  await expect(card).toBeFocused();
  const detail = page.getByRole('region', { name: 'Call detail' });
  await expect(detail).toBeHidden();

  await page.keyboard.press('Enter');
  await expect(detail.getByRole('heading', { name: 'write_file' })).toBeFocused();
  await expect(page.getByRole('listbox')).toBeHidden();
  const ruleButton = detail.getByRole('button', { name: 'Allow with a rule…' });
  await tabTo(page, ruleButton);
  await page.keyboard.press('Enter');
  const form = detail.getByRole('group', { name: 'Allow with a rule' });
  await expect(form).toBeVisible();
  await expect(form.getByLabel('Calls with')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(form).toBeHidden();
  await expect(ruleButton).toBeFocused();

  await page.keyboard.press('Escape');
  await expect(detail).toBeHidden();
  await expect(card).toBeFocused();
  await page.keyboard.press('d');
  expect((await call).isError).toBe(true);
  expect(existsSync(join(world.scratch, 'small.txt'))).toBe(false);
});
