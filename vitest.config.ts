import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'shared/**/*.test.ts', 'electron/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real child processes and sockets: keep parallelism within the 2-core budget.
    maxWorkers: 2,
  },
});
