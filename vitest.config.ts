import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // chDB is one engine per process: every test file runs in its own forked process.
    pool: 'forks',
    isolate: true,
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
  },
});
