// A person in another tab learns that a call waits: the tab title counts waiting calls, a polite live
// region says each new call once, and (once allowed, on a click) a browser notification opens its card.
// The browser's notification surface is the boundary: its constructor is replaced by one that records.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from './support/fixtures.js';
import { startWorld, type World } from './support/world.js';

let world: World;
test.beforeEach(async () => {
  world = await startWorld({ files: { 'notes.txt': 'first\n' } });
});
test.afterEach(async () => world?.stop());

declare global {
  interface Window {
    __shown: Array<EventTarget & { title: string; options: NotificationOptions; closed: boolean }>;
    __asked: number;
  }
}

/** Records each notification instead of showing it; the permission and its prompt stay the browser's own. */
async function recordNotifications(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const Real = window.Notification;
    window.__shown = [];
    window.__asked = 0;
    class Recorded extends EventTarget {
      static get permission() {
        return Real.permission;
      }
      static requestPermission() {
        window.__asked++;
        return Real.requestPermission();
      }
      closed = false;
      constructor(
        readonly title: string,
        readonly options: NotificationOptions = {},
      ) {
        super();
        window.__shown.push(this as never);
      }
      close() {
        this.closed = true;
      }
    }
    (window as { Notification: unknown }).Notification = Recorded;
  });
}

/** Another tab in front: Playwright's focus emulation off, so this page really loses focus. */
async function otherTabInFront(context: BrowserContext, page: Page): Promise<Page> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  const other = await context.newPage();
  await other.goto('about:blank');
  await other.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);
  return other;
}

const said = (page: Page) => page.locator('#announcements > *').allTextContents();

test('the tab title counts waiting calls, and the live region says each new call once', async ({ page }) => {
  await world.openUi(page);
  await expect(page).toHaveTitle('Countersign');
  const client = await world.connect();
  const first = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'a.txt'), content: 'a\n' } });
  await expect(page).toHaveTitle('(1) Countersign');
  await expect.poll(() => said(page)).toEqual(['New call waiting: write_file on fs.']);
  const live = page.getByRole('log', { name: 'Announcements' });
  await expect(live).toHaveAttribute('aria-live', 'polite');

  // Renders of every kind (other screens, the clock ticking, a selection) say nothing new.
  await page.getByRole('button', { name: /^Servers/ }).click();
  await page.getByRole('button', { name: /^Queue/ }).click();
  await page.getByRole('option').first().click();
  const second = client.callTool({ name: 'read_text_file', arguments: { path: join(world.scratch, 'notes.txt') } });
  await expect(page).toHaveTitle('(2) Countersign');
  await expect.poll(() => said(page)).toEqual(['New call waiting: write_file on fs.', 'New call waiting: read_text_file on fs.']);

  await page
    .getByRole('region', { name: 'Call detail' })
    .getByRole('button', { name: /^Approve/ })
    .click();
  expect((await first).isError).toBeFalsy();
  await expect(page).toHaveTitle('(1) Countersign');
  await page.getByRole('region', { name: 'Call detail' }).getByRole('button', { name: /^Deny/ }).click();
  expect((await second).isError).toBe(true);
  await expect(page).toHaveTitle('Countersign');
  expect(await said(page)).toEqual(['New call waiting: write_file on fs.', 'New call waiting: read_text_file on fs.']);
});

test('the browser asks for permission only when the person clicks, never on its own', async ({ page, context }) => {
  await recordNotifications(context);
  await world.openUi(page);
  const offer = page.getByRole('button', { name: 'Turn on notifications' });
  await expect(offer).toBeVisible();
  await page.getByRole('button', { name: /^Settings/ }).click();
  await expect(page.getByRole('heading', { name: 'Notifications' })).toBeVisible();
  expect(await page.evaluate(() => window.__asked)).toBe(0);
  await page.getByRole('button', { name: 'Turn on notifications' }).click();
  await expect.poll(() => page.evaluate(() => window.__asked)).toBe(1);
  // Whatever the browser answered, the screen says it (headless Chromium answers without a person).
  const answer = await page.evaluate(() => Notification.permission);
  if (answer === 'granted') await expect(page.getByLabel(/Show a notification for each new call/)).toBeChecked();
  else await expect(page.getByText(answer === 'denied' ? /blocked for this page/ : /Turn on notifications/)).toBeVisible();
});

test('with permission, a call waiting while the tab is behind another shows a notification that opens its card', async ({ page, context }) => {
  await context.grantPermissions(['notifications'], { origin: world.broker.baseUrl });
  await recordNotifications(context);
  await world.openUi(page);
  await page.getByRole('button', { name: /^Settings/ }).click();
  await expect(page.getByLabel(/Show a notification for each new call/)).toBeChecked();
  const client = await world.connect();

  // In front and focused, the person sees the card itself: no notification.
  const seen = client.callTool({ name: 'read_text_file', arguments: { path: join(world.scratch, 'notes.txt') } });
  await expect(page).toHaveTitle('(1) Countersign');
  expect(await page.evaluate(() => window.__shown.length)).toBe(0);

  const other = await otherTabInFront(context, page);
  const target = join(world.scratch, 'from-notification.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path: target, content: 'approved from a notification\n' } });
  await expect.poll(() => page.evaluate(() => window.__shown.length)).toBe(1);
  const shown = await page.evaluate(() => ({ title: window.__shown[0]!.title, body: window.__shown[0]!.options.body, tag: window.__shown[0]!.options.tag }));
  expect(shown.title).toBe('Approve write_file?');
  expect(shown.body).toContain('wants to run write_file on fs.');
  expect(shown.tag).toMatch(/^countersign-/);
  await expect(page).toHaveTitle('(2) Countersign');

  // The person clicks it: the queue opens on that call's card, focused.
  await page.evaluate(() => window.__shown[0]!.dispatchEvent(new Event('click')));
  // The click handler calls window.focus(), which brings the tab forward in a browser with a screen;
  // headless Chromium has none, so the test brings it forward. Focus inside the page is the UI's doing.
  await page.bringToFront();
  const card = page.getByRole('option').filter({ hasText: 'write_file' });
  await expect(card).toBeFocused();
  await expect(card).toHaveAttribute('aria-selected', 'true');
  expect(await page.evaluate(() => window.__shown[0]!.closed)).toBe(true);
  await page.keyboard.press('a');
  expect((await call).isError).toBeFalsy();
  expect(readFileSync(target, 'utf8')).toBe('approved from a notification\n');

  // A call decided elsewhere takes its notification away.
  await other.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(false);
  const third = client.callTool({ name: 'write_file', arguments: { path: join(world.scratch, 'x.txt'), content: 'x\n' } });
  await expect.poll(() => page.evaluate(() => window.__shown.length)).toBe(2);
  const [pending] = (await world.broker.api<Array<{ id: string; tool: string; arguments: { path?: string } }>>('listPending')).filter((c) =>
    c.arguments.path?.endsWith('x.txt'),
  );
  await world.broker.api('decide', pending!.id, { kind: 'deny' });
  expect((await third).isError).toBe(true);
  await expect.poll(() => page.evaluate(() => window.__shown[1]!.closed)).toBe(true);
  await world.broker.api('decide', (await world.broker.api<Array<{ id: string }>>('listPending'))[0]!.id, { kind: 'deny' });
  await seen;
});
