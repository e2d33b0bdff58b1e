// What the words say at common sizes: the navigation and Pause keep their words at 800 px, and a queue
// card shows its server's name whole at 1280 (a name too long for any card is cut, with the full name in
// its title, never below twelve characters). Badges are checked on every screen by a11y.spec.ts.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { FILESYSTEM_SERVER, NODE } from '../test/helpers/paths.js';
import { expect, test } from './support/fixtures.js';
import { LONG_SERVER, navButton } from './support/tour.js';
import { startWorld, type World } from './support/world.js';

const HUGE_SERVER = 'filesystem-notes-for-the-quarterly-planning-team';
let world: World;
let notes: string;
test.beforeEach(async () => {
  notes = realpathSync(mkdtempSync(join(tmpdir(), 'cs-e2e-labels-')));
  writeFileSync(join(notes, 'todo.md'), '- one\n');
  const fs = { command: NODE, args: [FILESYSTEM_SERVER, notes] };
  world = await startWorld({ servers: { [LONG_SERVER]: fs, [HUGE_SERVER]: fs } });
});
test.afterEach(async () => {
  await world?.stop();
  rmSync(notes, { recursive: true, force: true });
});

/** The text a person sees (innerText leaves out what CSS hides). */
const seen = (l: Locator) => l.evaluate((el) => (el as HTMLElement).innerText.trim());

for (const size of [
  { width: 800, height: 600 },
  { width: 1280, height: 800 },
]) {
  test(`at ${size.width}×${size.height} every navigation item and Pause say what they are`, async ({ page }) => {
    await page.setViewportSize(size);
    await world.openUi(page);
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const label of ['Queue', 'Servers', 'Clients', 'Activity', 'Settings']) {
      const button = navButton(page, label);
      expect(await seen(button)).toBe(label);
      const word = button.locator('.nav-label');
      await expect(word).toBeVisible();
      const box = (await word.boundingBox())!;
      const navBox = (await nav.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(navBox.x);
      expect(box.x + box.width).toBeLessThanOrEqual(navBox.x + navBox.width);
      expect(await word.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    }
    const pause = page.getByRole('button', { name: 'Pause all calls' });
    expect(await seen(pause)).toBe(size.width <= 1100 ? 'Pause' : 'Pause all calls');
    await pause.click();
    const resume = page.getByRole('button', { name: 'Resume' });
    expect(await seen(resume)).toBe('Resume');
    await resume.click();
    await expect(pause).toBeVisible();
  });
}

test('at 1280×800 a queue card shows the server name whole; one too long for any card keeps at least 12 characters and its title', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await world.openUi(page);
  const calls = [LONG_SERVER, HUGE_SERVER].map(async (server) =>
    (await world.connect(server)).callTool({ name: 'read_text_file', arguments: { path: join(notes, 'todo.md') } }),
  );
  await expect(page.getByRole('option')).toHaveCount(2);

  for (const card of await page.getByRole('option').all()) await expect(card.locator('.card-clock:not(.clock-measure)')).toBeVisible();
  const name = (server: string) =>
    page
      .getByRole('option')
      .filter({ has: page.locator(`.card-server[title="${server}"]`) })
      .locator('.card-server');
  const whole = name(LONG_SERVER);
  expect(await seen(whole)).toBe(LONG_SERVER);
  expect(await whole.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  const cut = name(HUGE_SERVER);
  await expect(cut).toHaveAttribute('title', HUGE_SERVER);
  const [shown, twelve] = await cut.evaluate((el) => {
    const probe = document.createElement('span');
    probe.textContent = '0'.repeat(12);
    probe.style.font = getComputedStyle(el).font;
    probe.style.position = 'absolute';
    document.body.append(probe);
    const width = probe.getBoundingClientRect().width;
    probe.remove();
    return [el.getBoundingClientRect().width, width];
  });
  expect(shown).toBeGreaterThanOrEqual(twelve - 0.5);
  expect(HUGE_SERVER.startsWith(await seen(cut))).toBe(true);

  for (const id of (await world.broker.api<Array<{ id: string }>>('listPending')).map((c) => c.id)) await world.broker.api('decide', id, { kind: 'deny' });
  await Promise.allSettled(calls);
});
