// Shared test fixtures: a Chromium check (fail in CI, skip locally), and a page that fails the test on a
// CSP violation or an uncaught error, since either means the UI is broken under `serve`.
import { existsSync } from 'node:fs';
import { test as base, expect, type Page } from '@playwright/test';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const IN_CI = !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

export const test = base.extend<{ chromiumCheck: void; page: Page }>({
  chromiumCheck: [
    async ({}, use, testInfo) => {
      if (!existsSync(CHROMIUM_PATH)) {
        const why = `Chromium not found at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`;
        if (IN_CI) throw new Error(why);
        testInfo.skip(true, why);
      }
      await use();
    },
    { auto: true },
  ],
  page: async ({ page }, use) => {
    const problems: string[] = [];
    page.on('console', (msg) => {
      const text = msg.text();
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(text)) problems.push(text);
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    await use(page);
    expect(problems, 'the page reported CSP violations or errors').toEqual([]);
  },
});

export { expect };
