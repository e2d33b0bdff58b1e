import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Component tests (renderer/**/*.test.tsx) pick happy-dom with a `// @vitest-environment happy-dom` comment.
    include: ['test/**/*.test.ts', 'shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.ts', 'renderer/**/*.test.tsx'],
    // Refuse to run on a dist/ older than the sources (spawned tests run the bundle, not the .ts files).
    globalSetup: ['test/helpers/dist-fresh.ts'],
    // Above the helpers' waits (test/helpers/patience.ts): a slow machine makes a test slow, not failed.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Real child processes and sockets: keep parallelism within the 2-core budget.
    maxWorkers: 2,
    // Seal keys (electron/broker/store/key-vault.ts) go to a key folder of the tests' own, never the
    // keyring or the person's state folder; processes the tests start inherit it.
    env: { COUNTERSIGN_KEY_DIR: join(tmpdir(), 'countersign-test-keys') },
  },
});
