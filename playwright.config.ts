// Browser tests of the approval UI, in Debian's Chromium (never a downloaded browser), each against a
// real `countersign serve`, real MCP servers and a real MCP client. Run `npm run build` first.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// Seal keys go to a key folder of the tests' own (as in vitest.config.ts): the fixtures seal grants in
// this process, and the brokers they start (often with a temp HOME) must find the same key.
process.env.COUNTERSIGN_KEY_DIR ??= join(tmpdir(), 'countersign-test-keys');

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const screenshots = process.env.CS_SCREENSHOTS === '1';

export default defineConfig({
  testDir: 'e2e',
  // Each test runs a broker, servers, a client and a browser: two at a time fits two cores.
  workers: 2,
  fullyParallel: true,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    viewport: { width: 1360, height: 860 },
    actionTimeout: 10_000,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    { name: 'chromium', testIgnore: /screenshots\.spec\.ts/ },
    // `npm run screenshots` (CS_SCREENSHOTS=1 ... --project screenshots) refreshes docs/screenshots/.
    ...(screenshots ? [{ name: 'screenshots', testMatch: /screenshots\.spec\.ts/, workers: 1 }] : []),
  ],
});
