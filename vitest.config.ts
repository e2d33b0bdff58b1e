import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Component tests (renderer/**/*.test.tsx) pick happy-dom with a `// @vitest-environment happy-dom` comment.
    include: ['test/**/*.test.ts', 'shared/**/*.test.ts', 'electron/**/*.test.ts', 'renderer/**/*.test.ts', 'renderer/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real child processes and sockets: keep parallelism within the 2-core budget.
    maxWorkers: 2,
  },
});
