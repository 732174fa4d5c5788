import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['api/**/*.test.ts', 'worker/**/*.test.ts', 'shared/**/*.test.ts', 'client/**/*.test.ts'],
    // End-to-end tests spawn the built processes: build once before any file runs.
    globalSetup: ['./shared/testing/global-setup.ts'],
    reporters: ['default', './shared/testing/summary-reporter.ts'],
    pool: 'forks',
    // Two cores: more files at once only makes each slower and flakier.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
