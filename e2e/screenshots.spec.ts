// Refreshes docs/screenshots/ from a real session: `npm run screenshots` (scripts/screenshots.mjs).
// It takes the same walk as the accessibility test (e2e/support/tour.ts: a real `countersign serve`,
// real MCP servers and clients), so the pictures show today's screens. Not part of the normal run: the
// PNGs would change on every run.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { ROOT } from '../test/helpers/paths.js';
import { expect, test } from './support/fixtures.js';
import { startTour, walk, type Tour } from './support/tour.js';

const OUT = join(ROOT, 'docs', 'screenshots');
/** The pictures this script writes; docs name only these (test/unit/doc-paths.test.ts checks they exist). */
const SHOTS = ['empty-queue', 'queue', 'detail-diff', 'servers', 'clients', 'activity', 'undo-preview', 'rules'];

let tour: Tour;
test.beforeEach(async () => {
  tour = await startTour();
});
test.afterEach(async () => tour?.stop());

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await page.screenshot({ path: join(OUT, `${name}.png`), animations: 'disabled', caret: 'hide' });
}

/** Scrolls the nearest scrolling ancestor so `target` sits near the top of it. */
async function scrollToTop(target: Locator): Promise<void> {
  await target.evaluate((el) => {
    let box = el.parentElement;
    while (box && !(box.scrollHeight > box.clientHeight && /auto|scroll/.test(getComputedStyle(box).overflowY))) box = box.parentElement;
    if (box) box.scrollTop += el.getBoundingClientRect().top - box.getBoundingClientRect().top - 12;
  });
}

test('screenshots of every main screen', async ({ page }) => {
  test.setTimeout(120_000);
  mkdirSync(OUT, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  const taken: string[] = [];
  const take = async (name: string) => {
    await shot(page, name);
    taken.push(name);
  };
  await walk(page, tour, async (screen) => {
    switch (screen) {
      case 'queue-empty':
        return take('empty-queue');
      case 'queue-detail': {
        await take('queue');
        const detail = page.getByRole('region', { name: 'Call detail' });
        await scrollToTop(detail.getByRole('region', { name: 'Preview' }));
        await expect(detail.getByRole('region', { name: 'Changes from Current file to Proposed' })).toBeInViewport();
        return take('detail-diff');
      }
      case 'servers': {
        const limits = page.getByRole('heading', { name: 'Limits' });
        await scrollToTop(limits);
        await expect(limits).toBeInViewport();
        return take('servers');
      }
      case 'clients':
        return take('clients');
      case 'activity':
        return take('activity');
      case 'activity-undo':
        return take('undo-preview');
      case 'settings': {
        const rules = page.getByRole('heading', { name: 'Saved rules' });
        await scrollToTop(rules);
        await expect(rules).toBeInViewport();
        return take('rules');
      }
    }
  });
  expect(taken.sort()).toEqual([...SHOTS].sort());
});
