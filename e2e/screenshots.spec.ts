// Refreshes docs/screenshots/ from a real session: `CS_SCREENSHOTS=1 npx playwright test --project screenshots`.
// Not part of the normal run (the PNGs would change on every run).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { MEMORY_SERVER, NODE, ROOT } from '../test/helpers/paths.js';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';
import { approveShown, trustShown } from '../test/helpers/consent.js';

const OUT = join(ROOT, 'docs', 'screenshots');
const MEMORY_FILE = join(tmpdir(), `cs-shot-memory-${process.pid}.json`);
const RUG_PULL = `${ROOT}test/fixtures/rug-pull-server.mjs`;
const config = Array.from({ length: 40 }, (_, i) => `setting_${i + 1}: ${i % 7 === 0 ? 'on' : `value ${i + 1}`}`);

let world: World;
test.beforeAll(() => mkdirSync(OUT, { recursive: true }));
test.beforeEach(async () => {
  world = await startWorld({
    files: { 'config.yaml': `${config.join('\n')}\n`, 'notes.md': '# Notes\n\n- buy milk\n- call Sam\n' },
    servers: { memory: { command: NODE, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: MEMORY_FILE } } },
  });
});
test.afterEach(async () => {
  await world?.stop();
  rmSync(MEMORY_FILE, { force: true });
});

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(150); // let the clock tick and fonts settle
  await page.screenshot({ path: join(OUT, `${name}.png`) });
}

test('screenshots', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1360, height: 860 });
  await world.openUi(page);
  await shot(page, 'empty-queue');

  const fs = await world.connect();
  await fs.listTools();
  const p = (f: string) => join(world.scratch, f);
  const read = fs.callTool({ name: 'read_text_file', arguments: { path: p('notes.md') } });
  await expect(page.getByRole('option')).toHaveCount(1);
  await page.getByRole('button', { name: /^Approve/ }).click();
  await read;

  const next = config.map((l) => (l === 'setting_8: on' ? 'setting_8: off' : l)).filter((l) => l !== 'setting_21: value 21');
  next.splice(30, 0, 'upload_url: https://collector.example.net/ingest');
  const calls = [
    fs.callTool({ name: 'write_file', arguments: { path: p('config.yaml'), content: `${next.join('\n')}\n` } }),
    fs.callTool({ name: 'move_file', arguments: { source: p('notes.md'), destination: p('archive/notes-2024.md') } }),
    fs.callTool({ name: 'edit_file', arguments: { path: p('notes.md'), edits: [{ oldText: '- call Sam', newText: '- call Sam\n- renew passport' }] } }),
  ];
  await expect(page.getByRole('option')).toHaveCount(3);
  const memory = await world.connect('memory');
  await memory.listTools();
  calls.push(memory.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name: 'deploy\u200bkey', entityType: 'credential', observations: ['api_key: sk-proj-4fT9kQ2mX7vL1pR8sW3nY6bZ', 'note:    padded\ttext'] }] },
  }));
  await expect(page.getByRole('option')).toHaveCount(4);
  await page.getByRole('option').first().click();
  await expect(page.getByRole('region', { name: 'Preview' }).locator('.diff')).toBeVisible();
  await shot(page, 'queue');

  await page.getByRole('region', { name: 'Preview' }).scrollIntoViewIfNeeded();
  await page.locator('.detail-scroll').evaluate((el) => {
    const preview = el.querySelector('.preview') as HTMLElement;
    el.scrollTop = preview.offsetTop - 12;
  });
  await shot(page, 'detail-diff');

  await page.getByRole('option').nth(3).click();
  await expect(page.getByText('1 value looks like a secret')).toBeVisible();
  await page.locator('.detail-scroll').evaluate((el) => {
    const args = el.querySelector('.args') as HTMLElement;
    el.scrollTop = args.offsetTop - 12;
  });
  await shot(page, 'arguments');

  // Decide a few, so Activity has something to show.
  await page.getByRole('option').nth(1).click();
  await page.getByRole('button', { name: /^Approve/ }).click();
  await page.getByLabel(/Reason for denying/).fill('Not now');
  await page.getByRole('button', { name: /^Deny/ }).click();
  await page.getByRole('button', { name: /^Deny/ }).click();
  await page.getByRole('button', { name: /^Deny/ }).click();
  await Promise.allSettled(calls);

  await page.getByRole('button', { name: /^Servers/ }).click();
  await page.getByRole('button', { name: /^fs/ }).click();
  await page.locator('.tool summary').filter({ hasText: 'read_text_file' }).click();
  await page.setViewportSize({ width: 1360, height: 1120 });
  await shot(page, 'servers');
  await page.setViewportSize({ width: 1360, height: 860 });

  const flag = p('pulled.flag');
  await world.broker.api('addServer', 'weather', { command: NODE, args: [RUG_PULL, flag] });
  await approveShown(world.broker.api, 'weather');
  const weather = await world.connect('weather');
  await weather.listTools();
  await trustShown(world.broker.api, 'weather');
  writeFileSync(flag, 'pulled');
  await expect.poll(async () => {
    await weather.listTools();
    return (await world.broker.api<unknown[]>('listChanges')).length;
  }).toBeGreaterThan(0);
  await page.getByRole('button', { name: /^weather/ }).click();
  await expect(page.getByRole('region', { name: 'Changes waiting for your review' })).toBeVisible();
  await page.getByRole('region', { name: 'Changes waiting for your review' }).scrollIntoViewIfNeeded();
  await shot(page, 'review');

  await page.getByRole('button', { name: /^Activity/ }).click();
  const entries = page.getByRole('list', { name: 'Audit log' }).getByRole('listitem');
  await expect(entries.first()).toBeVisible();
  await entries.filter({ hasText: 'edit_file' }).getByRole('button').first().click();
  await shot(page, 'activity');

  await page.getByRole('button', { name: /^Queue/ }).click();
  await page.emulateMedia({ colorScheme: 'dark' });
  const more = fs.callTool({ name: 'write_file', arguments: { path: p('config.yaml'), content: `${next.join('\n')}\n` } });
  await expect(page.getByRole('option')).toHaveCount(1);
  await shot(page, 'queue-dark');
  await page.getByRole('button', { name: /^Deny/ }).click();
  await more;
});
